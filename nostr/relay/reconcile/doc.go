// Package reconcile brings a local store up to date with relays whatever
// the created_at of what it lacks (PROTOCOL.md section 7, "complete
// reads"): a relay filters since/until on created_at, not on arrival, so
// the client's cursor misses every event stamped before it that reached
// the relay later. Sync is the one entry point (`vesper sync`, and the
// daemon after every (re)connect and periodically).
//
// Files, by concern:
//
//   - sync.go: Sync, per relay: NIP-77 where the relay offers it, the
//     fallback (open matches, recent challenges, what they reveal) where
//     it does not; every event goes through the client's gate and out as
//     a relay.Received.
//   - neg.go: one NIP-77 session (NEG-OPEN, NEG-MSG rounds, NEG-CLOSE)
//     against a relay that may lie: bounded rounds, frames and waits, a
//     malformed message refused before negentropy decodes it, NIP-42 on
//     "auth-required:".
//   - split.go: a reconciled set that looks cut at a relay's cap is not
//     trusted: its created_at window is halved until each part is whole,
//     and a one-second window still cut is paged instead.
//
// The connection, paging and reason reading are the client's
// (nostr/relay/internal/wire), and NIP-11 documents come from
// nostr/relay/limits, so a relay is read the same way here as by the
// subscription client.
package reconcile
