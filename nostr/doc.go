// Package nostr is the protocol vocabulary of PROTOCOL.md section 1: the
// event kinds (the only place they are spelled), strict parsing of events as
// they arrive from relays, the id, signature and size checks, the tags the
// protocol reads, the result JSON, and builders for every event an agent or
// the daemon signs.
//
// Parsing is strict because two verifiers must drop exactly the same events:
// every parser returns a value or a typed error and never panics.
package nostr
