// Package ratings computes Glicko-2 ratings from final match results.
//
// The inputs are the final results of PROTOCOL.md section 2 ("What final
// means"): a result counts only once it is final, and it is dated by the
// created_at of the event that made it final. Ratings are a pure function of
// that list: Rate and Table read no clock and sort the games themselves into
// the canonical order (finalizing created_at, then match id), so every
// verifier that holds the same final results shows the same table.
//
// The rating system is Glicko-2 (Glickman, "Example of the Glicko-2 system")
// applied the way Lichess applies it:
//
//   - every game is its own rating period and is rated at once;
//   - before a game, a player's deviation grows with the time since their
//     previous game: phi becomes sqrt(phi^2 + t*sigma^2), with t the idle days
//     times Params.PeriodsPerDay (a new player has no idle growth), and is then
//     kept within [Params.MinRD, Params.MaxRD];
//   - the game itself adds no further rating period (step 6 of the paper uses
//     zero elapsed periods, Lichess's skipDeviationIncrease), because the idle
//     growth above already accounts for the time that passed;
//   - after the game the rating is kept at or above Params.MinRating, the
//     deviation within [Params.MinRD, Params.MaxRD] and the volatility at or
//     below Params.MaxVolatility.
//
// Update is the paper's single rating period, step 6 included, for callers
// and tests that want the textbook computation.
//
// Chess and gomoku are separate pools: Rate and Table take the game kind and
// skip games of any other kind.
package ratings
