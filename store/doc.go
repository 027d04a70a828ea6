// Package store keeps the daemon's state in one SQLite file (modernc.org/sqlite,
// pure Go): every event exactly as it arrived with the time this verifier
// first saw it (PROTOCOL.md section 2, seen_at) and the relays that had it,
// an index of which matches each event belongs to, per-match summaries (the
// `vesper verify --json` line of section 6), per-relay backfill cursors,
// profiles (kind 0, newest per pubkey) and the outbox of what the daemon
// publishes (section 3: "everything it publishes it records first").
//
// The store never applies match rules. It only indexes membership as
// section 2 defines it: a challenge belongs to the match whose id is its own
// id, and an accept, move, result, request or ruling belongs to every match
// its g tags name. Whether an event is valid in that match is the fold's
// business. The store does not verify signatures either: callers hand it
// events that passed nostr.ParseAndVerify.
//
// # Durability
//
// The file runs in WAL mode with synchronous=FULL: a call that returned nil
// has committed and the WAL was fsynced, so its data survives a killed
// process (kill -9) and also a power loss or kernel crash. NORMAL would
// survive a killed process too but may lose the last commits on power
// loss, and the daemon acts on its commits at once: it advances relay
// cursors past stored events and publishes outbox events it recorded, so a
// lost commit could mean a skipped event or a duty signed twice. FULL costs
// one fsync per transaction (about 0.4 ms here: single-event commits ran
// at about 1,100/s against 2,200/s with NORMAL); batching wins it back, as
// PutEvents writes a whole batch in one transaction (about 10,000 events/s
// in batches of 100, either mode).
//
// A restart resumes from the cursors. Callers advance a cursor only after
// the events before it are stored; a crash between the two only means
// fetching some events again, which PutEvent deduplicates.
//
// # Concurrency
//
// One process may write while others read (`vesper matches`, `vesper
// export` beside a running daemon; OpenReadOnly is for them: it never
// creates, migrates or writes). In-process, all writes go through one
// connection (SQLite has one writer at a time, and a single connection
// avoids SQLITE_BUSY between our own goroutines); reads use a small pool of
// query-only connections that see the last committed state. Write
// transactions start with BEGIN IMMEDIATE and every connection has a busy
// timeout, so a second process that writes waits for the lock instead of
// failing. A Store is safe for concurrent use.
//
// # Schema
//
// The schema version is PRAGMA user_version; Open applies the missing
// migration steps in order, each in its own transaction together with the
// version bump, and refuses a file written by a newer vesper (a version it
// does not know) or a SQLite file that belongs to another application.
package store
