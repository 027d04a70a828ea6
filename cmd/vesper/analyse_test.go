package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// analyseFixture is a store holding a final chess match (the fool's mate),
// a final gomoku match (Black's five), and a chess match still in play,
// each with its summary, as the daemon leaves them.
type analyseFixture struct {
	data                 string
	chess, gomoku, going string
}

func newAnalyseFixture(t *testing.T) analyseFixture {
	t.Helper()
	ctx := context.Background()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	t0 := time.Now().Unix() - 7200
	f := analyseFixture{data: t.TempDir()}
	st, err := store.Open(filepath.Join(f.data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	add := func(game string, at int64, moves []string, final bool) string {
		m := testkit.NewMatch(alice, bob, game, "", at)
		m.Accept(at + 10)
		end := m.Play(moves, at+20, 10)
		if final {
			s, err := match.Fold(m.ID, m.Events, nil)
			if err != nil || !s.Over {
				t.Fatalf("fixture match is not over: %v", err)
			}
			r := nostr.Result{Result: s.Result, Reason: string(s.Reason), Plies: s.Plies(), FinalHash: s.FinalHash()}
			m.Result(m.A, r, end+10)
			m.Result(m.B, r, end+20)
		}
		for _, ev := range m.Events {
			if _, err := st.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "", int64(ev.CreatedAt)); err != nil {
				t.Fatal(err)
			}
		}
		s, err := match.Fold(m.ID, m.Events, nil)
		if err != nil || s.Final != final {
			t.Fatalf("fixture: final %v, want %v (%v)", s.Final, final, err)
		}
		sum := s.Summary(t0 + 7200)
		if err := st.PutSummary(ctx, store.Summary{Match: m.ID, Game: game, First: s.First, Second: s.Second,
			Status: string(sum.Status), Final: s.Final, UpdatedAt: t0, JSON: match.MarshalLine(sum)}); err != nil {
			t.Fatal(err)
		}
		return m.ID
	}
	f.chess = add(nostr.GameChess, t0, []string{"f2f3", "e7e5", "g2g4", "d8h4"}, true)
	f.gomoku = add(nostr.GameGomoku, t0+100, []string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, true)
	f.going = add(nostr.GameChess, t0+200, []string{"e2e4", "e7e5"}, false)
	return f
}

// builtin keeps the CLI tests fast and independent of Stockfish.
var builtin = []string{"--engine", "builtin", "--nodes", "5000"}

// TestAnalyseOneMatch: `vesper analyse MATCH` grades a final match,
// stores it, prints the stored one on a second run, and redoes it with
// --force, to the same bytes.
func TestAnalyseOneMatch(t *testing.T) {
	f := newAnalyseFixture(t)
	args := append([]string{"analyse", f.chess, "--data", f.data, "--json"}, builtin...)
	r := vesper(t, nil, nil, args...)
	if r.code != 0 {
		t.Fatalf("analyse: %d %q %q", r.code, r.stdout, r.stderr)
	}
	g, err := analysis.Parse([]byte(r.stdout))
	if err != nil || g.Status != analysis.StatusDone || g.Match != f.chess || len(g.Moves) != 4 {
		t.Fatalf("analysis %v: %s", err, r.stdout)
	}
	if g.Moves[2].Tag != analysis.TagBlunder || g.Moves[3].Move != "Qh4#" || g.Moves[3].Tag != analysis.TagBest {
		t.Errorf("grades: %s", r.stdout)
	}
	if !strings.Contains(r.stderr, "built-in engine") {
		t.Errorf("stderr does not say which engine: %q", r.stderr)
	}
	again := vesper(t, nil, nil, args...)
	if again.code != 0 || again.stdout != r.stdout {
		t.Errorf("second run: %d %q, want the stored analysis", again.code, again.stdout)
	}
	forced := vesper(t, nil, nil, append(args, "--force")...)
	if forced.code != 0 || forced.stdout != r.stdout {
		t.Errorf("--force: %d %q, want the same bytes again", forced.code, forced.stdout)
	}
	st, err := store.OpenReadOnly(filepath.Join(f.data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, ok, err := st.Analysis(t.Context(), f.chess)
	if err != nil || !ok || string(a.JSON) != r.stdout || a.Status != "done" || a.Engine != "vesper nodes 5000" {
		t.Errorf("stored: %+v %v %v", a, ok, err)
	}
	text := vesper(t, nil, nil, "analyse", f.chess, "--data", f.data)
	if text.code != 0 || !strings.Contains(text.stdout, "2.g4 blunder (best") || !strings.Contains(text.stdout, "accuracy") {
		t.Errorf("text: %d %q %q", text.code, text.stdout, text.stderr)
	}
}

// TestAnalyseRefusals: usage mistakes, a match that is not final, one the
// store lacks, a Stockfish that is not there.
func TestAnalyseRefusals(t *testing.T) {
	f := newAnalyseFixture(t)
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"not final", append([]string{f.going}, builtin...), exitRules},
		{"not stored", append([]string{strings.Repeat("ab", 32)}, builtin...), exitNotFound},
		{"bad match id", append([]string{"xyz"}, builtin...), exitUsage},
		{"two matches", append([]string{f.chess, f.gomoku}, builtin...), exitUsage},
		{"unknown engine", []string{f.chess, "--engine", "crafty"}, exitUsage},
		{"negative depth", []string{f.chess, "--engine", "builtin", "--depth", "-1"}, exitUsage},
		{"stockfish missing", []string{f.chess, "--engine", "stockfish", "--stockfish", filepath.Join(f.data, "none")}, exitFailure},
		{"stockfish path with builtin", []string{f.chess, "--engine", "builtin", "--stockfish", "/bin/true"}, exitUsage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := vesper(t, nil, nil, append([]string{"analyse", "--data", f.data, "--json"}, tt.args...)...)
			var e struct {
				Error string
				Code  int
			}
			if r.code != tt.code || json.Unmarshal([]byte(r.stdout), &e) != nil || e.Code != tt.code || e.Error == "" {
				t.Errorf("status %d %q %q, want %d and one JSON error", r.code, r.stdout, r.stderr, tt.code)
			}
		})
	}
}

// TestAnalyseAll: without MATCH every final unanalysed match is graded,
// with a progress line each on stderr and one summary object on stdout;
// a second run has nothing left to do.
func TestAnalyseAll(t *testing.T) {
	f := newAnalyseFixture(t)
	args := append([]string{"analyse", "--data", f.data, "--json"}, builtin...)
	r := vesper(t, nil, nil, args...)
	var sum struct {
		Total, Analysed, Failed int
		Matches                 []struct{ Match, Game, Status string }
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &sum) != nil {
		t.Fatalf("analyse: %d %q %q", r.code, r.stdout, r.stderr)
	}
	// The queue's order is the store's round-robin over players, with ties
	// broken by match id: which of the two comes first is not asserted.
	games := map[string]string{}
	for _, m := range sum.Matches {
		games[m.Match] = m.Game
	}
	if sum.Total != 2 || sum.Analysed != 2 || sum.Failed != 0 || len(sum.Matches) != 2 ||
		games[f.chess] != "chess" || games[f.gomoku] != "gomoku" {
		t.Errorf("summary %+v", sum)
	}
	if !strings.Contains(r.stderr, "] "+short(f.chess)+": chess, 4 plies") ||
		!strings.Contains(r.stderr, "[1/2] ") || !strings.Contains(r.stderr, "[2/2] ") {
		t.Errorf("progress lines: %q", r.stderr)
	}
	again := vesper(t, nil, nil, args...)
	if again.code != 0 || json.Unmarshal([]byte(again.stdout), &sum) != nil || sum.Total != 0 {
		t.Errorf("second run: %d %q", again.code, again.stdout)
	}
	forced := vesper(t, nil, nil, append(args, "--force")...)
	if forced.code != 0 || json.Unmarshal([]byte(forced.stdout), &sum) != nil || sum.Analysed != 2 {
		t.Errorf("--force: %d %q", forced.code, forced.stdout)
	}
	gom := vesper(t, nil, nil, "analyse", f.gomoku, "--data", f.data, "--json")
	g, err := analysis.Parse([]byte(gom.stdout))
	// 3.a3 let Black's open four in; 5.l8 is the five.
	if err != nil || g.Moves[5].Tag != analysis.TagBlunder || g.Moves[8].Tag != analysis.TagBest {
		t.Errorf("gomoku analysis %v: %s", err, gom.stdout)
	}
}

// TestAnalyseStockfish: by default Stockfish grades, when it is installed,
// and stderr says so.
func TestAnalyseStockfish(t *testing.T) {
	if _, err := analysis.FindStockfish(""); err != nil {
		t.Skip(err)
	}
	f := newAnalyseFixture(t)
	r := vesper(t, nil, nil, "analyse", f.chess, "--data", f.data, "--json", "--depth", "6")
	g, err := analysis.Parse([]byte(r.stdout))
	if r.code != 0 || err != nil || !strings.HasPrefix(g.Engine.Name, "Stockfish") || g.Engine.Depth != 6 {
		t.Fatalf("%d %q %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "analysing with Stockfish at ") {
		t.Errorf("stderr: %q", r.stderr)
	}
}
