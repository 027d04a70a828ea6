// Package relay talks to Nostr relays for vesper: a Client that reads the
// game kinds (PROTOCOL.md section 1) and watched authors' profiles from every
// configured relay, one-shot Fetch (MatchFilters for a whole match) for the CLI, and Publish
// with per-relay acknowledgements: Client.Publish on the client's own
// connections (the daemon's outbox: one websocket per relay, never one per
// item), the package's Publish on one-shot connections (the CLI).
//
// # Words
//
// The client reads a relay: it keeps a connection to it, with live
// subscriptions and a backfill (Client.read, one goroutine a relay). It
// reads Config.Relays, and the relays it follows: to follow a relay is to
// add it at run time from players' NIP-65 relay lists (Follow,
// SetFollowed, package follow); a followed relay is read like a
// configured one. It watches authors: their profiles (and relay lists)
// are read from every relay (WatchAuthors). The fallback of
// reconcile.Sync tracks matches (open ones, and those reveals name).
//
// # Where things are
//
// This package is the subscription client: client.go (Client, its relay
// set and Run), config.go (Config and its defaults), session.go (one
// relay's connection and live subscriptions), backfill.go (a session's
// backfill), profiles.go (watched authors' profiles), cursors.go (cursors
// and resumable backfills), follow.go (relays followed at run time),
// clientpublish.go and publish.go (publishing), fetch.go and watch.go
// (one-shot reads), inspect.go (`vesper relays`), errors.go (what a
// session or publication ends with).
// Next to it:
//
//   - nostr/relay/reconcile: Sync, NIP-77 reconciliation (and its
//     splitting of capped sets) with a REQ fallback, for complete reads
//     whatever the created_at;
//   - nostr/relay/follow: which relays of players' NIP-65 lists to
//     follow or publish to;
//   - nostr/relay/limits: NIP-11 documents and the REQ limits they imply;
//   - nostr/relay/internal/wire: one connection (the NIP-01 conversation,
//     the strict gate, NIP-42, reasons) and the Pager, shared by the
//     client and reconcile.
//
// # Complete only on evidence
//
// No read takes a relay's word that its answer is whole (issue 34):
//
//   - REQ: wire.Pager walks each filter backwards by "until" with the
//     relay's page size, and ends only on evidence: a page that brings
//     nothing new, or one shorter than the limit asked for when the relay
//     announced its max_limit, unless that page is of a cap-like size
//     (wire.CapLike), which a store capped below its announced max_limit
//     returns while more remain. Fetch, the client's backfill, the sync's
//     REQs and the seat's history all read through it.
//   - NIP-77: reconcile.Sync checks each relay's NIP-77 view against its
//     REQ view before trusting it (reconcile/calibrate.go), splits sets
//     that look cut (reconcile/split.go), asks again by id for what a
//     relay listed and did not send, and names what it still lacks.
//   - A live subscription (Watch) delivers only the newest stored events
//     a relay lets through: the seat's stream (seat/events.go) reads the
//     history of each of its matches by paged Fetch, a few matches a filter,
//     before it folds.
//
// # Why not go-nostr's SimplePool (or its Relay)
//
// The package is built on go-nostr v0.52.3 (its websocket Connection,
// Event, Filter and REQ envelope, NIP-11 and NIP-42 helpers) but runs the
// NIP-01 conversation itself, one connection per relay, because:
//
//   - Strictness. go-nostr decodes EVENTs with a lenient decoder (a null
//     field becomes zero, a missing one empty), while PROTOCOL.md section 1
//     drops such events, and two verifiers must drop the same ones. Here the
//     raw bytes of every EVENT go to nostr.ParseEvent and nostr.Verify.
//   - Counting. go-nostr's Relay drops bad signatures silently and does not
//     check that the id is the event's hash; here every rejected event is
//     reported to Config.OnReject with its reason (RejectBadID, ...).
//   - Backfill. SimplePool resubscribes from "now" after a drop and dedupes
//     across relays; the client must instead backfill each relay's gap from
//     its own cursor, paging backwards past relay caps, and deliver an event
//     once per relay that has it (the store records which relays had it).
//   - Order and races. go-nostr dispatches each event on its own goroutine
//     (no order with respect to EOSE) and its Relay has data races on
//     reconnect; here one dispatcher goroutine per connection delivers in
//     wire order, so "EOSE" means every stored event before it was
//     delivered. (A reader goroutine feeds it frames; the events that queue
//     up meanwhile, a backfill page, have their signatures checked in one
//     batch by nostr/batch.)
//
// # How a relay is read
//
// Each relay has its own goroutine and connection, so a dead or slow relay
// stalls no other. On every connect the client reads the relay's NIP-11
// document (max_limit sets the page size; max_message_length,
// max_subscriptions and max_filters bound the REQs), opens a live
// subscription for the game kinds with "limit":0 (new events only), waits
// for its EOSE, then backfills each game filter from cursor - SafetyMargin
// to now, paging with "until" (wire.Pager). Live and backfill overlap, so
// nothing between them is lost; duplicates are harmless (the store
// dedupes).
//
// Kind-0 profiles of the watched authors have live subscriptions of their
// own, split within the relay's limits (as many as they allow; past about
// 7,600 authors one REQ breaks khatru's 512,000-byte limit and the relay
// drops the connection, for good), and, being replaceable, are fetched
// whole after each backfill in batches of ProfileBatch authors, one query
// at a time.
//
// The cursor is a time of our clock, not the newest created_at seen: an
// event dated in the future cannot push it ahead, and a quiet relay is not
// backfilled from its last event on every reconnect. When the backfill is
// done the cursor moves to the time the live subscription started, and
// afterwards to the time of each successful ping (every PingInterval),
// since a live subscription delivers in order. It moves only when the
// consumer has taken every delivered event from out, so no event waiting
// in a buffered out is ever behind a saved cursor. With
// Config.MarkCursors the client writes no cursor: it sends each move on out
// as a mark behind the events it covers, and the consumer saves it once it
// has stored them (SaveMark), so not even an event taken but not yet
// stored is behind a saved cursor.
//
// An unfinished backfill is resumable: after each page its progress (a
// Backfill: the window and how far down each filter has got) is saved the
// same way, when Cursors implements BackfillStore (the store does), and
// the next session, in this process or after a restart, first covers the
// gap since that backfill started and then goes on where it stopped. A
// daemon in a crash loop still catches up.
//
// # What a relay cannot make the client do
//
// A relay is anyone's program (issue 13). Per connection the client reads
// no websocket message over MaxMessageSize (the relay is disconnected),
// holds at most QueueBytes of frames read ahead of the consumer, and does
// not offer permessage-deflate (a small compressed frame could inflate a
// thousandfold). An EOSE wait lasts QueryTimeout of the relay's time
// however many events trickle in (the time the consumer keeps the client
// waiting does not count). Each session asks for at most BackfillPages
// pages, then keeps its progress and reconnects, so endless pages cannot
// keep it paging. NIP-11 documents are read up to limits.MaxInfoSize and cached
// per relay for ten minutes (thirty seconds after a failure), shared with
// Fetch and Publish. Relay-supplied text (NOTICE, CLOSED and OK reasons) is
// cut to 200 bytes, and NOTICEs are logged at most ten in a burst, then
// one per six seconds, the rest counted.
//
// Ready tells when every relay has settled its first backfill since Run
// started: completed it, failed three sessions in a row, used
// BackfillEvents or a session's BackfillPages, or taken BackfillBudget
// since Run started. No relay holds the others back longer than that. A
// dropped connection is retried with jittered exponential backoff (reset
// after a session that completed or advanced its backfill, stepped twice
// on "rate-limited:"), and the next backfill covers the gap.
//
// NIP-42: when a relay answers a REQ (CLOSED), an EVENT (OK false) or a
// NIP-77 NEG-OPEN (NEG-ERR) with "auth-required:", the client signs the
// relay's challenge with the configured key (once per connection) and
// retries; on a relay whose NIP-11 document says auth_required, the
// client, Fetch, reconcile.Sync (NIP-77 sessions too) and Publish authenticate
// first, before their first query or event. The machine-readable prefix
// of a reason is read in one place (wire.ReasonPrefix), wherever the relay puts
// it: strfry writes "ERROR: auth-required: ...". "restricted:" is a
// refusal AUTH does not lift (ErrRestricted). Without a key, the refusal
// wraps ErrAuthNoKey, and the client retries such a relay only at the
// put-aside pace. strfry serves a filter that names no restricted kind to
// anyone and withholds those kinds from it silently, so Fetch reads again
// what it read before authenticating. Publish skips relays whose NIP-11
// document rules the event out, and says why in PublishResult.Skipped:
// restricted_writes or payment_required (unless the caller marks the
// relay as one whose policy admits its key: Config.MayWrite,
// PublishOptions.MayWrite), auth_required without a key, PoW or size
// limits the event does not meet, a created_at outside
// created_at_lower_limit/created_at_upper_limit (read as seconds from now,
// or as unix times when they are that large). It counts an OK false
// "duplicate:" as accepted, and waits and retries on "rate-limited:"
// while its timeout allows. Client.Publish never dials: a relay without a
// live connection answers ErrNotConnected at once and the outbox retries
// it later, behind the client's reconnect backoff.
//
// The live subscription to the game kinds is split into as many REQs as
// max_filters (and max_message_length) require, and the profile
// subscriptions share what max_subscriptions leaves. Inspect reports what
// a relay announces and how the client adapts (`vesper relays`).
//
// # Relays added at run time (NIP-65)
//
// A player's events are on the write relays of its relay list (kind
// 10002), which may not be among Config.Relays. With Config.RelayLists the
// client watches the authors' relay lists along with their
// profiles; follow.OutboxRelays (a pure function) picks from those lists
// the first few write relays of each player, deduplicated and ordered so
// that a cap keeps the relays that find the most players, leaving out
// relays on private networks unless allowed; Follow and SetFollowed
// change the followed set while Run runs, within Config.MaxRelays. A
// followed relay is handled exactly as a configured one (its own
// goroutine, cursor and backfill, the same gate for every event), except
// that it never holds Ready back, Publish does not write to it (the read
// relays of a tagged player, follow.InboxRelays, are written to by the
// package's Publish), and after Config.AsideAfter failed sessions in a
// row it is put aside: retried only after AsideBackoff, doubling to
// AsideMaxBackoff, until a session succeeds.
//
// Every delivered event passed nostr.ParseEvent and the checks of
// nostr.Verify (the signature through nostr/batch, which answers as btcec). Events
// larger than nostr.MaxEventSize are delivered too: they are protocol events
// the fold must see to ignore (nostr.TooLarge tells them). An event's bytes
// go through one parser, nostr.ParseEvent: the envelope around it is split
// by nostr.SplitArray, which does not decode it.
package relay
