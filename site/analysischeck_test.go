package site

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// A reader's own decoding of a chess analysis.json: only what
// docs/ANALYSIS-JSON.md says recomputes the figures.
type checkEval struct {
	CP   int    `json:"cp"`
	Mate int    `json:"mate"`
	End  string `json:"end"`
}

type checkFile struct {
	Formula *struct {
		MateCP        float64 `json:"mate_cp"`
		WinK          float64 `json:"win_k"`
		AccuracyA     float64 `json:"accuracy_a"`
		AccuracyB     float64 `json:"accuracy_b"`
		AccuracyC     float64 `json:"accuracy_c"`
		AccuracyBonus float64 `json:"accuracy_bonus"`
		WindowDivisor float64 `json:"window_divisor"`
		WindowMin     float64 `json:"window_min"`
		WindowMax     float64 `json:"window_max"`
		WeightMin     float64 `json:"weight_min"`
		WeightMax     float64 `json:"weight_max"`
	} `json:"formula"`
	Moves []struct {
		Move   string     `json:"move"`
		Best   string     `json:"best"`
		Before *checkEval `json:"before"`
		After  *checkEval `json:"after"`
		Loss   int        `json:"cp_loss"`
	} `json:"moves"`
	Players []struct {
		Accuracy float64 `json:"accuracy"`
		ACPL     float64 `json:"acpl"`
	} `json:"players"`
}

// recompute is a reader's implementation of docs/ANALYSIS-JSON.md, written
// from the document and not calling package analysis: each side's
// accuracy and average centipawn loss, unrounded.
func recompute(f *checkFile) (acc, acpl [2]float64) {
	k := f.Formula
	// A position's value from one side, in capped centipawns, and its
	// order for the "no worse than the engine's choice" rule.
	capped := func(e *checkEval, sign int) float64 {
		if e.Mate != 0 && e.End != "checkmate" {
			return float64(sign) * math.Copysign(k.MateCP, float64(e.Mate))
		}
		return math.Max(-k.MateCP, math.Min(k.MateCP, float64(sign*e.CP)))
	}
	order := func(e *checkEval, sign int) float64 {
		const big = 1e9
		switch {
		case e.End == "checkmate":
			if sign*e.CP > 0 {
				return big
			}
			return float64(sign * e.CP)
		case sign*e.Mate > 0:
			return big - float64(sign*e.Mate)
		case sign*e.Mate < 0:
			return -big - float64(sign*e.Mate)
		}
		return float64(sign * e.CP)
	}
	win := func(c float64) float64 { return 50 + 50*(2/(1+math.Exp(-k.WinK*c))-1) }
	n := len(f.Moves)
	wins := make([]float64, 0, n+1) // White's Win% of every position
	moveAcc := make([]float64, n)
	var loss [2]float64
	for i, m := range f.Moves {
		sign := 1 - 2*(i%2)
		wins = append(wins, win(capped(m.Before, 1)))
		if m.Move == m.Best {
			moveAcc[i] = 100
			continue
		}
		wb, wa := win(capped(m.Before, sign)), win(capped(m.After, sign))
		moveAcc[i] = 100
		if wa < wb {
			moveAcc[i] = math.Min(math.Max(k.AccuracyA*math.Exp(-k.AccuracyB*(wb-wa))+k.AccuracyC+k.AccuracyBonus, 0), 100)
		}
		if order(m.After, sign) < order(m.Before, sign) {
			loss[i%2] += math.Max(0, capped(m.Before, sign)-capped(m.After, sign))
		}
	}
	wins = append(wins, win(capped(f.Moves[n-1].After, 1)))
	size := int(math.Min(math.Max(float64(n/int(k.WindowDivisor)), k.WindowMin), k.WindowMax))
	// The windows: the first one repeated so that there is one per move.
	var windows [][]float64
	first := wins[:min(size, len(wins))]
	for range len(first) - 2 {
		windows = append(windows, first)
	}
	for i := 0; i+size <= len(wins); i++ {
		windows = append(windows, wins[i:i+size])
	}
	if len(wins) < size {
		windows = append(windows, wins)
	}
	var weighted, weights, inverse, count [2]float64
	for i, a := range moveAcc {
		if i >= len(windows) {
			break
		}
		mean, v := 0.0, 0.0
		for _, x := range windows[i] {
			mean += x / float64(len(windows[i]))
		}
		for _, x := range windows[i] {
			v += (x - mean) * (x - mean) / float64(len(windows[i]))
		}
		w := math.Min(math.Max(math.Sqrt(v), k.WeightMin), k.WeightMax)
		s := i % 2
		weighted[s] += a * w
		weights[s] += w
		inverse[s] += 1 / math.Max(1, a)
		count[s]++
	}
	for s := range 2 {
		acc[s] = (weighted[s]/weights[s] + count[s]/inverse[s]) / 2
		acpl[s] = loss[s] / math.Ceil(float64(n-s)/2)
	}
	return acc, acpl
}

// TestAnalysisRecomputable analyses the Opera Game with vesper's own
// engine, builds its page, and recomputes both sides' accuracy and average
// centipawn loss from the published analysis.json alone, with the
// reader's implementation above: the same figures as the file's and the
// page's, to the digit they show (issue 37).
func TestAnalysisRecomputable(t *testing.T) {
	opera := strings.Fields("e2e4 e7e5 g1f3 d7d6 d2d4 c8g4 d4e5 g4f3 d1f3 d6e5 f1c4 g8f6 f3b3 d8e7 b1c3 c7c6 c1g5 b7b5 c3b5 c6b5 c4b5 b8d7 e1c1 a8d8 d1d7 d8d7 h1d1 e7e6 b5d7 f6d7 b3b8 d7b8 d1d8")
	m := testkit.NewMatch(alice, bob, nostr.GameChess, "", t0)
	m.Accept(t0 + 60)
	last := m.Play(opera, t0+120, 60)
	s := foldT(t, m)
	m.Result(alice, result(s, "first", "checkmate"), last+10)
	m.Result(bob, result(s, "first", "checkmate"), last+20)
	s = foldT(t, m)
	g, err := analysis.Analyse(context.Background(), s, analysis.Options{Nodes: 3000})
	if err != nil {
		t.Fatal(err)
	}
	in := Input{States: []*match.State{s}, Now: last + 3600, ListAll: true, Analyses: map[string]*analysis.Game{s.Match: g}}
	in.RatingGames = RatingGames(in.States)
	out, _ := buildFixture(t, in)
	var f checkFile
	if err := json.Unmarshal([]byte(readSite(t, out, analysisPath(s.Match))), &f); err != nil {
		t.Fatal(err)
	}
	if f.Formula == nil || f.Formula.WinK == 0 || f.Formula.AccuracyA == 0 || f.Formula.WindowMax == 0 {
		t.Fatalf("analysis.json lacks the formula's constants: %+v", f.Formula)
	}
	acc, acpl := recompute(&f)
	page := readSite(t, out, "m/"+s.Match+".html")
	if !strings.Contains(page, "with the evaluations and the formula's constants it holds, anyone can recompute the accuracy and the average centipawn loss without an engine") {
		t.Error("the page does not say that analysis.json recomputes its figures")
	}
	row := func(label string) string {
		i := strings.Index(page, label+"</th>")
		if i < 0 {
			t.Fatalf("the page has no %q row", label)
		}
		return page[i : i+strings.Index(page[i:], "</tr>")]
	}
	cell := regexp.MustCompile(`<td class="n">([^<]*)</td>`)
	accCells, acplCells := cell.FindAllStringSubmatch(row("Accuracy"), -1), cell.FindAllStringSubmatch(row("Average centipawn loss"), -1)
	if len(accCells) != 2 || len(acplCells) != 2 {
		t.Fatalf("the page's rows: %q, %q", accCells, acplCells)
	}
	for side := range 2 {
		a1, l1 := math.Round(acc[side]*10)/10, math.Round(acpl[side]*10)/10
		if f.Players[side].Accuracy != a1 || f.Players[side].ACPL != l1 {
			t.Errorf("side %d: analysis.json says accuracy %v, ACPL %v; recomputed from its evaluations %v, %v",
				side, f.Players[side].Accuracy, f.Players[side].ACPL, a1, l1)
		}
		if want := fmt.Sprintf("%.1f%%", a1); accCells[side][1] != want {
			t.Errorf("side %d: the page's accuracy %q, recomputed %q", side, accCells[side][1], want)
		}
		if want := fmt.Sprint(math.Round(acpl[side])); acplCells[side][1] != want {
			t.Errorf("side %d: the page's average centipawn loss %q, recomputed %q", side, acplCells[side][1], want)
		}
		t.Logf("side %d: accuracy %.4f, ACPL %.4f", side, acc[side], acpl[side])
	}
}
