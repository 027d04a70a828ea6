// Package relayd is a real Nostr relay for loopback tests and local use:
// khatru v0.19.1 in front of a small event store of our own, kept in memory
// or in SQLite (modernc.org/sqlite, no cgo).
//
// Why our own store: eventstore v0.16.2's slicestore reads and writes its
// slice without a lock (khatru handles every message in its own goroutine,
// so it races), and its sqlite3 backend needs cgo (mattn/go-sqlite3), which
// this module does not carry. The stores here implement eventstore.Store, so
// khatru's hooks use them exactly as they would use eventstore's.
//
// Live delivery is ours too (live.go): khatru v0.19.1 walks its listener
// list without a lock, which the race detector reports in any test with
// concurrent subscribers and publishers. With it replaced, tests that use
// this relay run clean under -race.
//
// Other clients see a relay that keeps to the NIPs it lists (as others
// see it, issue 24): NIP-77 errors go out as NEG-ERR (negerr.go: khatru
// writes go-nostr's NEG-ERROR, which nostr-tools does not know), a session
// the relay does not hold as "closed: unknown subscription handle", and a
// connection hears one AUTH challenge, not one per refusal (issue 34); events
// PROTOCOL.md section 1 calls malformed, and expired ones (NIP-40), are
// refused "invalid:" (wellformed.go); the NIP-11 document lists 42 only
// when AUTH is required, and then the challenge comes on connect; empty
// and unset fields are left out of it (nip11.go).
//
// Every websocket connection passes a guard (guard.go, issue 30): it
// counts connections per client address, closes idle ones, and follows
// NIP-77 sessions by reading the client's frames before khatru does
// (clientframes.go) and khatru's answers on the way out, so that a
// NEG-OPEN past the session caps or the memory budget is answered NEG-ERR
// "blocked: ..." without khatru building its vector. The same two views
// give each connection flow control (flow.go, issue 38): khatru reads a
// connection's next message only while fewer than MaxInFlight are
// unanswered, REQs past MaxSubscriptions get CLOSED "blocked: ...", and a
// connection refused MaxStrikes times in a row is closed. Limits has the
// bounds; the zero value sets none, `vesper relay` uses PublicLimits.
//
// The relay is meant for fault injection as much as for serving: it can drop
// every client websocket (DropConnections), go away and come back on the same
// port (Stop, Restart), cap query results (Options.MaxLimit, to exercise
// backfill paging), announce and enforce max_filters and created_at limits
// in its NIP-11 document (nip11.go), refuse writes with a chosen OK message
// (SetRejectWrites, e.g. "rate-limited: slow down"), require NIP-42 AUTH,
// answer duplicates with OK false "duplicate:" as some relays do, and serve
// events that never passed its checks (Inject, to test a client's own
// verification), and pass an event on to live subscriptions without storing
// it (Broadcast, so that a client's live view and a fresh read disagree).
package relayd
