package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func report(w io.Writer, players [2]player, cfg config, results []gameResult, stats [2]sideStats, loads []float64, incidents []string, wall time.Duration) {
	eng, opp := players[0].name(), players[1].name()
	t := tallyResults(results)
	n := len(results)
	pct := 100 * t.points / float64(n)
	meanPlies := float64(t.plies) / float64(n)

	fmt.Fprintf(w, "%s vs %s: %d games, go movetime %d, overrun above %v, draw at %d plies, overrun forfeits: %v\n",
		eng, opp, n, cfg.movetime.Milliseconds(), cfg.movetime+cfg.margin, cfg.maxPlies, cfg.forfeit)
	fmt.Fprintf(w, "score: %s %.1f/%d = %.1f%%  (W-D-L %d-%d-%d)\n", eng, t.points, n, pct, t.wins, t.draws, t.losses)
	reasons := make([]string, 0, len(t.ends))
	for r := range t.ends {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	var parts []string
	for _, r := range reasons {
		parts = append(parts, fmt.Sprintf("%s %d", r, t.ends[r]))
	}
	fmt.Fprintf(w, "endings: %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "game length: mean %.1f plies (min %d, max %d), counted from the start position, opening included\n",
		meanPlies, t.minPlies, t.maxPlies)
	printSideTable(w, eng, opp, stats)
	if len(loads) > 0 {
		lo, hi, sum := loads[0], loads[0], 0.0
		for _, l := range loads {
			lo, hi, sum = min(lo, l), max(hi, l), sum+l
		}
		fmt.Fprintf(w, "load average (1 min, sampled before each game): min %.2f, mean %.2f, max %.2f\n", lo, sum/float64(len(loads)), hi)
	}
	fmt.Fprintf(w, "wall time: %v\n", wall.Round(time.Second))
	for _, s := range incidents {
		fmt.Fprintln(w, "incident:", s)
	}
	fmt.Fprintf(w, "markdown: | %s vs %s | %d | %.1f%% | %d-%d-%d | %d | %d | %d | %.1f | %s |\n",
		eng, opp, n, pct, t.wins, t.draws, t.losses, stats[0].illegal, stats[0].overruns, t.ends[endPlyCap], meanPlies, npsText(stats[0]))
}

// tally is the games' outcome figures from the engine's side.
type tally struct {
	wins, draws, losses       int
	plies, minPlies, maxPlies int
	points                    float64
	ends                      map[string]int // games by how they ended
}

func tallyResults(results []gameResult) tally {
	t := tally{ends: map[string]int{}}
	for i, r := range results {
		t.points += r.score
		switch r.score {
		case 1:
			t.wins++
		case 0:
			t.losses++
		default:
			t.draws++
		}
		t.ends[r.reason]++
		t.plies += r.plies
		if i == 0 || r.plies < t.minPlies {
			t.minPlies = r.plies
		}
		t.maxPlies = max(t.maxPlies, r.plies)
	}
	return t
}

// printSideTable prints each player's figures side by side.
func printSideTable(w io.Writer, eng, opp string, stats [2]sideStats) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\t%s\t%s\t\n", eng, opp)
	row := func(label string, f func(s sideStats) string) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", label, f(stats[0]), f(stats[1]))
	}
	row("moves", func(s sideStats) string { return fmt.Sprint(s.moves) })
	row("illegal moves", func(s sideStats) string { return fmt.Sprint(s.illegal) })
	row("non-canonical moves", func(s sideStats) string { return fmt.Sprint(s.noncanonical) })
	row("time overruns", func(s sideStats) string { return fmt.Sprint(s.overruns) })
	row("  of which CPU <= movetime", func(s sideStats) string { return fmt.Sprint(s.starved) })
	row("no reply", func(s sideStats) string { return fmt.Sprint(s.noReply) })
	row("reply time mean", func(s sideStats) string { return msText(meanDur(s.think, s.moves)) })
	row("reply time max", func(s sideStats) string { return msText(s.thinkMax) })
	row("nodes/s (info lines)", npsText)
	tw.Flush()
}

func meanDur(d time.Duration, n int) time.Duration {
	if n == 0 {
		return 0
	}
	return d / time.Duration(n)
}

func msText(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// npsText is the nodes over the search time of the last info line of each
// move. An engine that reports only finished iterations undercounts both,
// which leaves the ratio fair.
func npsText(s sideStats) string {
	if s.searchMS == 0 {
		return "-"
	}
	return fmt.Sprintf("%d", s.nodes*1000/s.searchMS)
}

func writePGN(path string, results []gameResult, players [2]player, cfg config) error {
	var b strings.Builder
	date := time.Now().UTC().Format("2006.01.02")
	for i, r := range results {
		white, black := players[r.white].name(), players[1-r.white].name()
		whiteScore := r.score
		if r.white == 1 {
			whiteScore = 1 - r.score
		}
		result := map[float64]string{1: "1-0", 0.5: "1/2-1/2", 0: "0-1"}[whiteScore]
		fmt.Fprintf(&b, "[Event \"ucimatch, go movetime %d\"]\n[Site \"?\"]\n[Date \"%s\"]\n[Round \"%d\"]\n",
			cfg.movetime.Milliseconds(), date, i+1)
		fmt.Fprintf(&b, "[White \"%s\"]\n[Black \"%s\"]\n[Result \"%s\"]\n", white, black, result)
		fmt.Fprintf(&b, "[Opening \"%s\"]\n[Termination \"%s\"]\n[PlyCount \"%d\"]\n\n", openings[(i/2)%len(openings)].name, r.reason, r.plies)
		col := 0
		for j, san := range r.pgn {
			tok := san
			if j%2 == 0 {
				tok = fmt.Sprintf("%d. %s", j/2+1, san)
			}
			if col > 0 && col+len(tok)+1 > 79 {
				b.WriteByte('\n')
				col = 0
			} else if col > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(tok)
			col += len(tok)
		}
		if col > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(result + "\n\n")
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
