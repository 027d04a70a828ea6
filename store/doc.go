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
// The file runs in WAL mode with synchronous=NORMAL, and FULL for the
// commits that must outlive a power loss. A call that returned nil has
// committed: its data survives a killed process (kill -9) in either mode.
// What NORMAL gives up is the fsync at commit, so a power loss or kernel
// crash may undo the last commits; WAL recovery then keeps a prefix of the
// commits, in order, so the store is as it was a moment earlier. That is
// safe for everything fetched or computed: events and the relay cursors that
// point past them roll back together (the events are fetched again),
// summaries are recomputed. It is not safe for the outbox, whose event the
// daemon publishes once recorded: were the record lost, a restart would
// sign a second event for the same duty. OutboxAdd therefore commits with
// synchronous=FULL, which fsyncs the WAL and every commit before it.
// The fsync is the cost: one takes about 0.4 ms at the median on this
// project's VMs but over 10 ms at the 99th percentile, which a new move,
// stored and summarised, should not wait for (docs/PERFORMANCE.md).
//
// A restart resumes from what the file says. The summaries name the
// matches that are not final. The dirty marks name the matches whose
// stored events are newer than their summary: the marks are written in the
// transaction that stores the events and taken in the one that writes the
// summary, so a crash between the two leaves them (ResumeSet). The relays
// are reconciled against the stored ids (NIP-77 in created_at windows,
// StampWindows), so an event stamped before a cursor is not lost. Callers
// advance a cursor only after the events before it are stored; a crash
// between the two only means fetching some events again, which PutEvent
// deduplicates.
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
