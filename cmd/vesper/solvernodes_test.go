package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/analysis"
	"vesper/engine/connect4"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// storeConnect4 stores a final Connect Four match of moves, with its
// summary, in a new data directory, and returns the directory and id.
func storeConnect4(t *testing.T, moves []string) (data, id string) {
	t.Helper()
	ctx := context.Background()
	data = t.TempDir()
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	at := time.Now().Unix() - 7200
	m := testkit.NewMatch(testkit.Key("red"), testkit.Key("yellow"), nostr.GameConnect4, "", at)
	m.Accept(at + 10)
	end := m.Play(moves, at+20, 10)
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || !s.Over {
		t.Fatalf("fixture match is not over: %v", err)
	}
	r := s.Computed()
	m.Result(m.A, r, end+10)
	m.Result(m.B, r, end+20)
	for _, ev := range m.Events {
		if _, err := st.PutEvent(ctx, ev, nostr.MarshalEvent(ev), "", int64(ev.CreatedAt)); err != nil {
			t.Fatal(err)
		}
	}
	if s, err = match.Fold(m.ID, m.Events, nil); err != nil || !s.Final {
		t.Fatalf("fixture match is not final: %v", err)
	}
	sum := s.Summary(end + 30)
	if err := st.PutSummary(ctx, store.Summary{Match: m.ID, Game: nostr.GameConnect4, First: s.First, Second: s.Second,
		Status: string(sum.Status), Final: true, UpdatedAt: end + 30, JSON: match.MarshalLine(sum)}); err != nil {
		t.Fatal(err)
	}
	return data, m.ID
}

// TestAnalyseSolverNodes: --solver-nodes reaches the Connect Four solver.
// Columns a, b and c filled in turn, then d: Red's four along the bottom
// row at ply 19. With the default budget the solver proves plies 12 to 17
// (a mistake, then best moves and blunders); with one node it proves none
// of them, and they are graded unknown. The budget is named in the
// analysis's engine, and a budget under one node is a usage error.
func TestAnalyseSolverNodes(t *testing.T) {
	moves := strings.Split("aaaaaabbbbbbccccccd", "")
	grades := func(extra ...string) *analysis.Game {
		t.Helper()
		data, id := storeConnect4(t, moves)
		r := vesper(t, nil, nil, append([]string{"analyse", id, "--data", data, "--json"}, extra...)...)
		if r.code != 0 {
			t.Fatalf("analyse %v: %d %q %q", extra, r.code, r.stdout, r.stderr)
		}
		g, err := analysis.Parse([]byte(r.stdout))
		if err != nil || len(g.Moves) != len(moves) {
			t.Fatalf("analysis %v: %s", err, r.stdout)
		}
		return g
	}
	proven := func(g *analysis.Game) (n int) {
		for _, m := range g.Moves[11:17] {
			if m.Tag != analysis.TagUnknown {
				n++
			}
		}
		return n
	}
	def, one := grades(), grades("--solver-nodes", "1")
	if n := proven(def); n != 6 {
		t.Errorf("default budget: %d of plies 12 to 17 graded, want 6: %+v", n, def.Moves[11:17])
	}
	if n := proven(one); n != 0 {
		t.Errorf("--solver-nodes 1: %d of plies 12 to 17 graded, want every one unknown: %+v", n, one.Moves[11:17])
	}
	if def.Engine.Nodes != connect4.DefaultBudget || one.Engine.Nodes != 1 {
		t.Errorf("engines %+v and %+v, want the budgets %d and 1", def.Engine, one.Engine, connect4.DefaultBudget)
	}
	data, id := storeConnect4(t, moves)
	if r := vesper(t, nil, nil, "analyse", id, "--data", data, "--solver-nodes", "0"); r.code != exitUsage || !strings.Contains(r.stderr, "--solver-nodes") {
		t.Errorf("--solver-nodes 0: %d %q, want a usage error naming the flag", r.code, r.stderr)
	}
	help := vesper(t, nil, nil, "analyse", "--help")
	if !strings.Contains(help.stdout, fmt.Sprintf("--solver-nodes (default %d)", connect4.DefaultBudget)) ||
		!strings.Contains(help.stdout, fmt.Sprintf("(default: %d)", connect4.DefaultBudget)) {
		t.Errorf("analyse --help does not state the default budget %d: %q", connect4.DefaultBudget, help.stdout)
	}
}

// TestDaemonSolverNodes: the daemon's --analysis-solver-nodes becomes its
// analysis's solver budget, the constant when not given.
func TestDaemonSolverNodes(t *testing.T) {
	budget := func(args ...string) int64 {
		t.Helper()
		cmd := daemonCommand()
		var got int64 = -1
		cmd.Action = func(c *cli.Context) error {
			an, err := daemonAnalysis(c)
			if err != nil || an == nil {
				t.Fatalf("daemonAnalysis %v: %v %v", args, an, err)
			}
			got = an.Engine.SolverNodes
			return nil
		}
		app := &cli.App{Commands: []*cli.Command{cmd}}
		if err := app.Run(append([]string{"vesper", "daemon", "--analyse", "builtin"}, args...)); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := budget(); got != connect4.DefaultBudget {
		t.Errorf("default: budget %d, want %d", got, connect4.DefaultBudget)
	}
	if got := budget("--analysis-solver-nodes", "7"); got != 7 {
		t.Errorf("--analysis-solver-nodes 7: budget %d", got)
	}
}
