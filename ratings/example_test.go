package ratings_test

import (
	"fmt"

	"vesper/ratings"
)

func ExampleTable() {
	const day = 86400
	games := []ratings.Game{
		// Out of order on purpose: Table sorts by finalizing time, then match id.
		{Match: "m2", Kind: "chess", First: "bob", Second: "alice", Result: "draw", At: 3 * day},
		{Match: "m1", Kind: "chess", First: "alice", Second: "bob", Result: "first", At: 1 * day},
		{Match: "m3", Kind: "chess", First: "carol", Second: "alice", Result: "second", At: 40 * day},
		{Match: "g1", Kind: "gomoku", First: "carol", Second: "bob", Result: "first", At: 2 * day},
	}
	for _, p := range ratings.Table("chess", games, ratings.LichessParams()) {
		fmt.Printf("%-5s %-12s %d-%d-%d score %.2f [%.2f, %.2f]\n",
			p.Pubkey, p.Display(), p.Wins, p.Draws, p.Losses, p.Score, p.ScoreLow, p.ScoreHigh)
	}
	// Output:
	// alice 1716 ± 627?  2-1-0 score 0.83 [0.31, 0.98]
	// bob   1415 ± 708?  0-1-1 score 0.25 [0.03, 0.80]
	// carol 1288 ± 728?  0-0-1 score 0.00 [0.00, 0.79]
}

func ExampleRate() {
	const day = 86400
	games := []ratings.Game{
		{Match: "m1", Kind: "chess", First: "alice", Second: "bob", Result: "first", At: 1 * day},
		{Match: "m2", Kind: "chess", First: "bob", Second: "alice", Result: "draw", At: 3 * day},
	}
	p := ratings.LichessParams()
	alice := ratings.Rate("chess", games, p)["alice"]
	for _, pt := range alice.History {
		fmt.Printf("day %d %s: %.0f RD %.0f\n", pt.At/day, pt.Match, pt.Rating, pt.RD)
	}
	// A page built a year later shows the RD grown with the idle time.
	fmt.Printf("RD a year on: %.0f\n", alice.RDAt(368*day, p))
	// Output:
	// day 1 m1: 1741 RD 397
	// day 3 m2: 1585 RD 354
	// RD a year on: 380
}

func ExampleUpdate() {
	// Glickman's worked example: one rating period of three games, tau 0.5.
	player := ratings.Glicko{Rating: 1500, RD: 200, Volatility: 0.06}
	after := ratings.Update(player, []ratings.Opponent{
		{Rating: 1400, RD: 30, Score: 1},
		{Rating: 1550, RD: 100, Score: 0},
		{Rating: 1700, RD: 300, Score: 0},
	}, 0.5)
	fmt.Printf("%.2f %.2f %.6f\n", after.Rating, after.RD, after.Volatility)
	// Output: 1464.05 151.52 0.059996
}
