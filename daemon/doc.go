// Package daemon is vesper's service: it follows the relays, stores every
// game event once with the time it was first seen, keeps the state of
// every match that is not final (PROTOCOL.md sections 1-6), records and
// publishes its duties through the outbox (section 3), and builds the
// public site from the matches that changed.
//
// The shape is litestream's: Open(cfg) builds a Daemon on a store the
// caller opened, Run(ctx) runs it until ctx ends, and Close stops it and
// waits for every goroutine it started, so the caller closes the store
// under nobody. The clock is a Config field: tests drive duties with a
// fixed one. Nothing here parses flags, prints or exits.
//
// # The loop
//
// Run starts its workers (run.go: the relay client, the sync worker of
// syncworker.go, the publisher, the analysis and the records) and then
// steps a loop (step.go) the way raft's Step dispatches: loop.next waits
// for one event, loop.step hands it to its handler, and each handler is
// small and reads its time from the loop's wall clock and the daemon's
// clock, so a test drives it by hand with fixed ones:
//
//   - stepReceived: a batch from the relays and the sync worker. Its
//     events are stored (and folded once the gate is open), then the
//     relays' cursor marks behind them are saved and the syncs whose
//     markers it holds are recorded.
//   - stepReady: every relay has sent its backlog (or is found down).
//   - stepSyncLate: the start's sync has taken Options.FirstSyncWait;
//     duties stop waiting for it.
//   - stepQuiet: a second without events; the duties run.
//   - stepTick: the duties run if the last event is a second old or they
//     have not run for two ticks; the matches that expired or went dormant
//     leave memory.
//   - stepSite: the periodic site build.
//
// stepTick and stepSite are periodic: loop.every schedules them with
// pause.After and pause.On, which hand each run to the loop (as evDuty),
// so they run between two batches, never beside one.
//
// # The ingest path
//
// stepReceived classifies each event of a batch once (screen, classify:
// store.Classify's check of its fields, its matches, its role, whether it
// is a stub) into an item, the one home of those facts; the quotas
// (quota.go, revealadmit.go), the held challenges (held.go), the store,
// the fold (ingest.go), the stash, the reveals (revealed) and the
// challengers' profiles (challengers.go) read the item and derive nothing
// again. A held challenge offered again comes in through classify too.
// TestStepsReadTheItemsFacts holds it.
//
// The backfill gate: no duty runs before the first backfill (runDuties
// asks it), that is before stepReady and the start's first sync (or
// stepSyncLate) have both come; openGate then folds, once each, the
// matches stored meanwhile. After a restart, a ruling made on what one
// relay sent while another was still sending would be public, signed,
// and wrong. TestNoDutyBeforeFirstBackfill holds it.
package daemon
