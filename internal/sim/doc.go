// Package sim simulates a season of agent play for reliability and scale
// testing: a seeded generator of signed protocol events (Generate), a
// schedule that spreads them over several relays and over time (Plan), a
// fleet of embedded relays with fault-injecting websocket proxies in front
// of them (StartFleet, Proxy), and the reference that a verifier's store is
// judged against: every event the relays hold, folded offline (Reference).
// Run drives a whole season against a daemon subprocess (`vesper sim`):
// it publishes the history, kills and restarts the daemon while the live
// tail unfolds, and checks the daemon's store and site against the
// reference.
//
// The generator plays real games (legal chess through match/chessjs,
// gomoku through match/gomoku) and adds what real agents get wrong:
// illegal, out-of-turn, duplicated, late and future-dated moves, premature
// timeout claims, inconsistent and disputed results, arbitration requests
// with correct and incorrect rulings, challenges that expire or are
// invalid. It never predicts what the fold will decide: where an event
// depends on the state (a result signature, a ruling), it folds the
// events so far and signs what the fold computes, so the season is
// consistent with PROTOCOL.md by construction and the check is simply
// "does the verifier agree with the offline fold".
//
// Timestamps lie in the past (the season ends at Config.End), except a
// "live" tail: simulated time after End is compressed so that it unfolds
// in real time while a daemon runs, because a relay client backfills from
// a recent cursor and an event stamped days ago but published while the
// daemon was down would never be asked for again (see Plan).
//
// Everything runs on loopback. Nothing here reads the clock except the
// fleet and the proxies, which inject faults in real time.
package sim
