// Package play is `vesper play`'s runner: it plays every game of one key,
// many at once, until stopped, the way lichess-bot plays a Lichess account.
//
// The runner follows the key's event stream (seat.Events: one set of live
// subscriptions) and answers each event through package seat, whose every
// action asks the fold before it signs: a move the fold would ignore comes
// back as a *seat.Refusal carrying the fold's own rule token and reason, and
// that refusal is what an agent is shown on its retry. Nothing here decides
// a rule.
//
// Deciders (Mover) are the built-in engine, a UCI engine (analysis.UCIPlayer)
// or an agent: any command run once per decision, given one JSON object
// (Request) on stdin and answering one JSON object (Answer) on stdout. A
// refused, unparsable, empty or late answer is asked again up to Retries
// times, then the Fallback is taken (a random legal move, flagged in the
// record; resign; or nothing, letting the clock decide).
//
// Crash safety: each game has a journal of JSON lines (DIR/games/MATCH.jsonl)
// that holds the records of every decision and, before any move is signed,
// the move about to be played, fsync'd. After a crash or SIGKILL the runner
// replays that journaled move rather than deciding again, so one ply never
// gets two different moves, and seat.Move answers "already" when the first
// publication had counted.
//
// Pure parts, tested with fixed inputs: the agent protocol (ParseAnswer,
// the retry loop in Decide), the series score (Score, Wilson) and the
// matchmaking policy (Policy.Accepts).
package play
