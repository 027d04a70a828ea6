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
// (Request) on stdin and answering on stdout. ParseAnswer reads the answer
// as a model writes it: one JSON object, the last JSON object among prose,
// a fenced block, or a bare move; the record says which form it read.
//
// The runner's promises, each guarded by a test of this package (named in
// brackets; cmd/vesper's play35_test.go plays them between real processes
// and `vesper verify`):
//
//   - Its word is the verifiers' word. A game is final, printed, counted in
//     the series and revealed only once a fresh read of the match from the
//     relays says final, in that order [TestPromiseOfferAfterTheMove]. An
//     agent's draw offer is posted after its move, on the position the
//     opponent must answer, never before it [TestPromiseOfferAfterTheMove].
//   - A request says what it wants: "move" with the legal moves, or "offer"
//     (whether to take the opponent's offer) without them
//     [TestPromiseOfferQuestionIsNoMoveRequest]; an offer that comes while
//     the agent chooses a move is asked about before the move goes out.
//   - Only what the agent can fix is asked again (an illegal move, an
//     unparsable, empty or late answer), up to Retries times after the
//     first [TestPromiseRetriesAndSummedUsage]; a refusal no answer can
//     change (the game ended meanwhile, not the key's turn, late) ends the
//     decision [TestPromiseNoRetryOfWhatTheAgentCannotFix]. The move carries
//     the answers refused before it ("attempts") and the sum of every
//     attempt's reported usage, a key no attempt reported staying absent
//     [TestPromiseRetriesAndSummedUsage].
//   - When every attempt was refused the Fallback is taken: a random legal
//     move, flagged on the event itself with ["fallback", "random"]
//     (PROTOCOL.md section 8.3) [TestPromiseRandomFallbackFlagged]; resign;
//     or nothing, letting the clock decide.
//   - Crash safety: each move the seat signs is journaled whole (content,
//     comment, reasoning hash, attempts, usage, fallback; the salt and text
//     in the seat's 0600 reasoning journal) and synced before it is sent
//     (seat.BeforePublish), and after a crash or SIGKILL that exact event
//     is sent again (seat.Resend), never a new decision nor a second event
//     for the ply [TestPromiseJournalBeforeSend, TestPromiseResendTheExactEvent].
//     A wake for a ply already played asks the agent again only when a
//     fresh read shows the move did not count.
//   - The journals (DIR/games/MATCH.jsonl) hold the agent's reasoning in
//     clear: they are 0600 in a 0700 directory [TestPromiseJournalBeforeSend].
//   - A series is its opponent, game, length and sides: each has its own
//     file (SeriesFile) [TestSeriesFilePerSeries].
//   - An agent dies with its runner: on Linux the kernel kills it when the
//     runner dies, even by SIGKILL (PR_SET_PDEATHSIG); elsewhere it runs in
//     its own process group, killed at its time limit
//     [cmd/vesper TestPlayKillAgentRunner].
//
// Pure parts, tested with fixed inputs: the agent protocol (ParseAnswer),
// the series score (Score, Wilson) and the matchmaking policy
// (Policy.Accepts).
//
// Files: runner.go (the Runner: its event loop, which match goes to which
// worker), config.go, matchmake.go (challenges posted and answered),
// worker.go (one match's worker), decide.go (one decision: asking the
// Mover, retries, the fallback), final.go (confirming a result), agent.go
// and answer.go (the agent protocol), journal.go, series.go and
// seriesfile.go.
package play
