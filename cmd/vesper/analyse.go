package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/analysis"
	"vesper/engine/connect4"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

func analyseCommand() *cli.Command {
	return &cli.Command{
		Name:      "analyse",
		Aliases:   []string{"analyze"},
		Usage:     "grade the moves of finished games: accuracy, centipawn loss, blunders (issue 18)",
		ArgsUsage: "[MATCH]",
		Description: "With MATCH (hex, note1 or nevent1): analyses that stored match, which must be final,\n" +
			"stores the result and prints it (--json: the analysis.json). Without: analyses every\n" +
			"final match (" + strings.Join(analysis.GradedKinds(), ", ") + ") that has no analysis yet, one progress line per match on\n" +
			"stderr (--json: one summary object). A match already analysed is printed, not redone,\n" +
			"unless --force.\n\n" +
			"Chess is evaluated by a UCI engine at a fixed depth or node budget, so two runs on the\n" +
			"same engine build give the same numbers: Stockfish (depth 12 by default) when found\n" +
			"(--stockfish, else `stockfish` on PATH, else " + analysis.DebianStockfish + "), else\n" +
			fmt.Sprintf("vesper's own engine (%d nodes per position by default). Gomoku needs no engine:\n", analysis.DefaultBuiltinNodes) +
			"missed fives and unstoppable fours are blunders, other moves are graded unknown.\n" +
			fmt.Sprintf("Connect Four is graded by an exact solver within --solver-nodes (default %d) per position.", connect4.DefaultBudget),
		Flags: []cli.Flag{dataFlag(), jsonFlag(),
			&cli.StringFlag{Name: "engine", Usage: "stockfish or builtin (default: stockfish if found, else builtin)"},
			&cli.StringFlag{Name: "stockfish", Usage: "path of the Stockfish (any UCI engine) to run"},
			&cli.IntFlag{Name: "depth", Usage: fmt.Sprintf("search depth per position (default %d for Stockfish; the built-in engine uses a node budget)", analysis.DefaultDepth)},
			&cli.Int64Flag{Name: "nodes", Usage: "node budget per position, alone or as a cap beside --depth"},
			&cli.IntFlag{Name: "nice", Usage: "niceness added to the Stockfish process, 0-19 (Linux)"},
			solverNodesFlag("solver-nodes"),
			&cli.BoolFlag{Name: "force", Usage: "analyse again matches that already have an analysis"},
		},
		Action: runAnalyse,
	}
}

func runAnalyse(c *cli.Context) error {
	if c.NArg() > 1 {
		return fail(exitUsage, "analyse takes at most one MATCH, got %d arguments", c.NArg())
	}
	opts, err := analyseOptions(c)
	if err != nil {
		return err
	}
	an, err := analysis.New(opts.Options)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	defer an.Close()
	// Ctrl-C or a TERM cancels the game in progress, which is then not
	// stored, and ends the engine.
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := openStore(c, false)
	if err != nil {
		return err
	}
	defer st.Close()
	r := &analyseRun{ctx: ctx, st: st, an: an, note: opts.note, force: c.Bool("force"), json: c.Bool("json")}
	if c.NArg() == 1 {
		id, err := nostr.ParseEventRef(c.Args().First())
		if err != nil {
			return fail(exitUsage, "MATCH: %v", err)
		}
		return r.one(id)
	}
	return r.all()
}

func analyseOptions(c *cli.Context) (analyseOpts, error) {
	o, err := engineOptions(c.String("engine"), c.String("stockfish"), c.Int("depth"), c.Int64("nodes"), c.Int("nice"))
	if err != nil {
		return o, err
	}
	o.SolverNodes, err = solverNodes(c, "solver-nodes")
	return o, err
}

type analyseRun struct {
	ctx         context.Context
	st          *store.Store
	an          *analysis.Analyser
	note        string
	force, json bool
}

// one analyses a single match (or prints the stored analysis).
func (r *analyseRun) one(id string) error {
	if !r.force {
		a, ok, err := r.st.Analysis(r.ctx, id)
		if err != nil {
			return fail(exitFailure, "store: %v", err)
		}
		if ok && a.Status == string(analysis.StatusDone) {
			if r.json {
				os.Stdout.Write(a.JSON)
				return nil
			}
			g, err := analysis.Parse(a.JSON)
			if err != nil {
				return fail(exitFailure, "stored analysis of %s: %v", id, err)
			}
			fmt.Fprintf(os.Stderr, "vesper: %s was analysed already (--force to redo)\n", short(id))
			printAnalysis(os.Stdout, g)
			return nil
		}
	}
	state, err := r.fold(id)
	if err != nil {
		return err
	}
	if !state.Final {
		return fail(exitRules, "match %s is not final: only games with a final result are analysed", id)
	}
	g, err := r.analyse(state)
	if err != nil {
		return fail(exitFailure, "analyse %s: %v", id, err)
	}
	if r.json {
		os.Stdout.Write(analysis.Marshal(g))
		return nil
	}
	printAnalysis(os.Stdout, g)
	return nil
}

// fold folds a stored match from its events.
func (r *analyseRun) fold(id string) (*match.State, error) {
	evs, seen, err := r.st.MatchEventsSeen(r.ctx, id)
	if err != nil {
		return nil, fail(exitFailure, "store: %v", err)
	}
	if len(evs) == 0 {
		return nil, fail(exitNotFound, "no match %s in the store", id)
	}
	state, err := match.Fold(id, evs, seen)
	if err != nil {
		return nil, fail(exitRules, "%v", err)
	}
	return state, nil
}

// analyse grades a final game and stores the analysis.
func (r *analyseRun) analyse(state *match.State) (*analysis.Game, error) {
	if state.Kind == nostr.GameChess && r.note != "" && len(state.Moves) > 0 {
		fmt.Fprintln(os.Stderr, "vesper: "+r.note)
		r.note = ""
	}
	g, err := r.an.Analyse(r.ctx, state)
	if err != nil {
		return nil, err
	}
	err = r.st.PutAnalysis(r.ctx, store.Analysis{Match: g.Match, Status: string(g.Status),
		Engine: g.Engine.String(), JSON: analysis.Marshal(g), UpdatedAt: nowUnix()})
	if err != nil {
		return nil, err
	}
	return g, nil
}

// analyseOutcome is one match of a batch, in the --json summary.
type analyseOutcome struct {
	Match  string `json:"match"`
	Game   string `json:"game"`
	Status string `json:"status"` // "done" or "failed"
	Plies  int    `json:"plies"`
	Error  string `json:"error,omitempty"`
}

// all analyses every final match without an analysis (with --force: every
// final chess and gomoku match), in the store's queue order.
func (r *analyseRun) all() error {
	ids, err := r.batchIDs()
	if err != nil {
		return err
	}
	out := []analyseOutcome{}
	failed := 0
	for i, id := range ids {
		if r.ctx.Err() != nil {
			break
		}
		start := time.Now()
		o := r.batchOne(id)
		if o.Status == string(analysis.StatusFailed) {
			failed++
			fmt.Fprintf(os.Stderr, "[%d/%d] %s: failed: %s\n", i+1, len(ids), short(id), o.Error)
		} else {
			fmt.Fprintf(os.Stderr, "[%d/%d] %s: %s, %d plies, %.1fs\n", i+1, len(ids), short(id), o.Game, o.Plies, time.Since(start).Seconds())
		}
		out = append(out, o)
	}
	cancelled := r.ctx.Err() != nil
	r.printBatch(out, len(ids), failed, cancelled)
	switch {
	case !cancelled && failed == 0:
		return nil
	case r.json:
		// The summary is the one JSON object: no error object after it.
		return &exitError{code: exitFailure}
	case cancelled:
		return fail(exitFailure, "cancelled")
	}
	return fail(exitFailure, "%d of %d analyses failed", failed, len(ids))
}

// batchIDs is the matches a batch analyses.
func (r *analyseRun) batchIDs() ([]string, error) {
	if !r.force {
		ids, err := r.st.Unanalysed(r.ctx, analysis.GradedKinds(), 0)
		if err != nil {
			return nil, fail(exitFailure, "store: %v", err)
		}
		return ids, nil
	}
	sums, err := r.st.Summaries(r.ctx)
	if err != nil {
		return nil, fail(exitFailure, "store: %v", err)
	}
	var ids []string
	for _, s := range sums {
		if s.Final && analysis.Grades(s.Game) {
			ids = append(ids, s.Match)
		}
	}
	return ids, nil
}

// batchOne analyses one match of a batch; a failure is in the outcome.
func (r *analyseRun) batchOne(id string) analyseOutcome {
	o := analyseOutcome{Match: id, Status: string(analysis.StatusDone)}
	state, err := r.fold(id)
	if err == nil && !state.Final {
		err = errors.New("not final")
	}
	if err == nil {
		o.Game, o.Plies = state.Kind, len(state.Moves)
		_, err = r.analyse(state)
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			err = errors.New(ee.msg)
		}
		o.Status, o.Error = string(analysis.StatusFailed), err.Error()
	}
	return o
}

// printBatch prints the batch's summary, as one JSON object with --json.
func (r *analyseRun) printBatch(out []analyseOutcome, total, failed int, cancelled bool) {
	if r.json {
		os.Stdout.Write(match.MarshalLine(map[string]any{
			"matches":   out,
			"total":     total,
			"analysed":  len(out) - failed,
			"failed":    failed,
			"cancelled": cancelled,
			"engine":    r.an.Engine(),
		}))
		return
	}
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "analysed %d of %d matches", len(out)-failed, total)
	if failed > 0 {
		fmt.Fprintf(w, ", %d failed", failed)
	}
	if cancelled {
		fmt.Fprint(w, ", then cancelled")
	}
	fmt.Fprintln(w)
	w.Flush()
}

// printAnalysis is the text form: each player's figures, then the
// inaccuracies, mistakes and blunders with the engine's choice.
func printAnalysis(w io.Writer, g *analysis.Game) {
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "match %s (%s, %d plies), graded by %s\n", g.Match, g.Game, len(g.Moves), g.Engine)
	for _, p := range g.Players {
		fmt.Fprintf(bw, "%-6s %s  %d moves", p.Side, short(p.Pubkey), p.Moves)
		if g.Game == nostr.GameChess {
			fmt.Fprintf(bw, "  accuracy %.1f  acpl %.1f", p.Accuracy, p.ACPL)
		}
		for _, t := range analysis.Tags {
			if n := p.Counts[t]; n > 0 {
				fmt.Fprintf(bw, "  %s %d", t, n)
			}
		}
		fmt.Fprintln(bw)
	}
	var notes []string
	for _, m := range g.Moves {
		if m.Tag != analysis.TagInaccuracy && m.Tag != analysis.TagMistake && m.Tag != analysis.TagBlunder {
			continue
		}
		s := fmt.Sprintf("%s %s", moveLabel(g.Game, m), m.Tag)
		if m.Best != "" {
			s += " (best " + m.Best + ")"
		}
		notes = append(notes, s)
	}
	if len(notes) > 0 {
		fmt.Fprintln(bw, strings.Join(notes, "\n"))
	}
}

// moveLabel numbers a move as players read it: 3...Nf6 in chess, the ply
// in gomoku.
func moveLabel(game string, m analysis.Move) string {
	if game != nostr.GameChess {
		return fmt.Sprintf("%d. %s", m.Ply, m.Move)
	}
	dots := "."
	if m.Ply%2 == 0 {
		dots = "..."
	}
	return fmt.Sprintf("%d%s%s", (m.Ply+1)/2, dots, m.Move)
}
