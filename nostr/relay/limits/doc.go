// Package limits reads what relays announce about themselves (NIP-11)
// and turns it into the bounds the client keeps to: Get returns a relay's
// document from a process-wide cache (one request per relay per ten
// minutes, read up to MaxInfoSize), and Of the REQ limits it implies
// (message size, filters per REQ, subscriptions per connection), with
// conservative guesses where the relay says nothing and clamps where it
// says something absurd. PackREQs and ProfileREQs split subscriptions to
// fit those limits.
package limits
