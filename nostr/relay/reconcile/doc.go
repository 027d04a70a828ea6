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
//     fallback where it does not; one relay's session, through whose
//     gate every event goes out as a relay.Received. options.go: Options
//     and Stats.
//   - nip77.go: a relay's reconciliation, filter by filter and window by
//     window, the events it lacks fetched by id and those never sent
//     counted.
//   - fallback.go: the REQ fallback: open matches, recent challenges,
//     and what they reveal, a bounded number of rounds.
//   - neg.go: one NIP-77 session (NEG-OPEN, NEG-MSG rounds, NEG-CLOSE)
//     against a relay that may lie: bounded rounds, frames and waits, a
//     malformed message refused before negentropy decodes it, NIP-42 on
//     "auth-required:". negmsg.go: that check of a NEG-MSG; negids.go:
//     the ids a session learns the relay has and lacks.
//   - calibrate.go: the NIP-77 check. Before reconciling, each relay's
//     NIP-77 view of its newest events is compared with its REQ view of
//     the same window; a relay whose view leaves out what its REQs read
//     (khatru on lmdb a little below its cap, strfry empty after AUTH, a
//     relay that drops ids) is paged by the fallback for this Sync
//     (Stats.Check, Stats.Untrusted), and checked again at the next.
//   - split.go: a reconciled set that looks cut at a relay's cap is not
//     trusted: its created_at window is halved until each part is whole,
//     and a one-second window still cut is paged instead. Splitting has a
//     budget in sessions and in time, and a relay that says "too many"
//     for a window of an hour or less is paged instead. span.go: a
//     created_at window and its halves.
//
// An id a relay listed and did not send is asked for again by id alone;
// one still not sent is named in Stats.MissingIDs (`vesper sync` exits 8).
//
// The connection, paging and reason reading are the client's
// (nostr/relay/internal/wire), and NIP-11 documents come from
// nostr/relay/limits, so a relay is read the same way here as by the
// subscription client.
package reconcile
