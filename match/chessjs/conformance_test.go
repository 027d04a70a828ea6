package chessjs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The conformance suite of PROTOCOL.md section 4: the real chess.js 1.4.0
// (installed by `npm ci --prefix conformance/chessjs`) generates vectors,
// random games from many seeds and hand-picked positions and strings, and
// this package must accept and refuse the same strings, pick the same move,
// print the same SAN, FEN and hash, and end each game at the same ply for
// the same reason.

var (
	conformanceSeeds = flag.Int("chessjs.seeds", 185, "random games chess.js generates for TestConformance")
	conformanceMin   = flag.Int("chessjs.min", 200000, "move checks TestConformance must make (not in -short mode)")
)

const conformanceDir = "../../conformance/chessjs"

// vectorGame is one line of gen.js's output.
type vectorGame struct {
	Name  string       `json:"name"`
	FEN   string       `json:"fen"`
	End   string       `json:"end"`
	Steps []vectorStep `json:"steps"`
}

type vectorStep struct {
	Probes [][2]string `json:"probes"`
	In     *string     `json:"in"`
	UCI    string      `json:"uci"`
	SAN    string      `json:"san"`
	FEN    string      `json:"fen"`
	Hash   string      `json:"hash"`
	End    string      `json:"end"`
	Moves  []string    `json:"moves"`
}

func TestConformance(t *testing.T) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(conformanceDir, "node_modules", "chess.js", "package.json"))
	}
	if err != nil {
		msg := fmt.Sprintf("chess.js 1.4.0 is not installed (%v): run `npm ci --prefix conformance/chessjs` from the repository root (needs node)", err)
		if testing.Short() {
			t.Skip(msg)
		}
		t.Fatal(msg)
	}
	seeds := *conformanceSeeds
	if testing.Short() {
		seeds = min(seeds, 4)
	}
	// Two generators share the work, so that both cores are busy: the first
	// runs the targeted cases (about as long as 22 random games) and fewer
	// random games.
	half := 1 + max(0, seeds-22)/2
	workers := [][][]string{
		{{"targeted"}, {"random", "1", fmt.Sprint(half)}},
		{{"random", fmt.Sprint(half), fmt.Sprint(seeds + 1)}},
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	games := make(chan vectorGame, 16)
	errs := make(chan error, len(workers))
	var wg sync.WaitGroup
	for _, runs := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, args := range runs {
				if err := generate(ctx, node, args, games); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	go func() { wg.Wait(); close(games) }()

	c := &conformance{t: t}
	for vg := range games {
		if c.failures >= 25 {
			cancel() // enough to go on with; stop the generators
			continue
		}
		c.game(vg)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("%d move checks (%d strings probed, %d moves played) in %d games; %d legal-move lists compared",
		c.probes+c.played, c.probes, c.played, c.games, c.lists)
	if !testing.Short() && c.probes+c.played < *conformanceMin {
		t.Errorf("only %d move checks, want at least %d: raise -chessjs.seeds", c.probes+c.played, *conformanceMin)
	}
}

// generate runs gen.js with args and sends the games it prints.
func generate(ctx context.Context, node string, args []string, games chan<- vectorGame) error {
	cmd := exec.CommandContext(ctx, node, append([]string{"gen.js"}, args...)...)
	cmd.Dir = conformanceDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	dec := json.NewDecoder(out)
	for {
		var vg vectorGame
		if err := dec.Decode(&vg); err != nil {
			if err == io.EOF {
				break
			}
			_ = cmd.Wait()
			if ctx.Err() != nil {
				return nil // stopped on purpose
			}
			return fmt.Errorf("gen.js %s: %v (%s)", strings.Join(args, " "), err, stderr.String())
		}
		select {
		case games <- vg:
		case <-ctx.Done():
			_ = cmd.Wait()
			return nil
		}
	}
	if err := cmd.Wait(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("gen.js %s: %v (%s)", strings.Join(args, " "), err, stderr.String())
	}
	return nil
}

type conformance struct {
	t                                      *testing.T
	games, probes, played, lists, failures int
}

func (c *conformance) fail(vg *vectorGame, step int, fen, format string, args ...any) {
	c.t.Helper()
	c.failures++
	c.t.Errorf("%s, step %d, position %s: %s", vg.Name, step, fen, fmt.Sprintf(format, args...))
}

// probeResult is a probe's expected value: the UCI of the move picked, ""
// for a refused string, "--" for the null move.
func probeResult(g *Game, s string) string {
	m, err := g.Parse(s)
	switch {
	case errors.Is(err, ErrNullMove):
		return "--"
	case err != nil:
		return ""
	}
	return m.UCI()
}

func outcomeReason(g *Game) string { return g.Outcome().Reason }

func (c *conformance) game(vg vectorGame) {
	c.games++
	g, err := NewGameFromFEN(vg.FEN)
	if err != nil {
		c.fail(&vg, 0, vg.FEN, "NewGameFromFEN: %v", err)
		return
	}
	if got := g.FEN(); got != vg.FEN {
		c.fail(&vg, 0, vg.FEN, "FEN() = %q", got)
	}
	if got := outcomeReason(g); got != vg.End {
		c.fail(&vg, 0, vg.FEN, "outcome at the start = %q, want %q", got, vg.End)
	}
	for i, st := range vg.Steps {
		before := g.FEN()
		for _, pr := range st.Probes {
			c.probes++
			if got := probeResult(g, pr[0]); got != pr[1] {
				c.fail(&vg, i, before, "probe %q: got %q, want %q", pr[0], got, pr[1])
			}
		}
		if st.Moves != nil {
			c.lists++
			var got []string
			for _, m := range g.LegalMoves() {
				got = append(got, m.SAN)
			}
			if strings.Join(got, " ") != strings.Join(st.Moves, " ") {
				c.fail(&vg, i, before, "legal moves\n got %v\nwant %v", got, st.Moves)
			}
		}
		if st.In == nil {
			continue
		}
		c.played++
		m, err := g.Move(*st.In)
		if err != nil {
			c.fail(&vg, i, before, "move %q refused: %v; chess.js plays %s", *st.In, err, st.UCI)
			return
		}
		if m.UCI() != st.UCI || m.SAN != st.SAN {
			c.fail(&vg, i, before, "move %q: got %s %s, want %s %s", *st.In, m.UCI(), m.SAN, st.UCI, st.SAN)
			return
		}
		if got := g.FEN(); got != st.FEN {
			c.fail(&vg, i, before, "after %q: FEN %q, want %q", *st.In, got, st.FEN)
		}
		if got := g.hashHex(); got != st.Hash {
			c.fail(&vg, i, before, "after %q: hash %s, want %s", *st.In, got, st.Hash)
		}
		if got := outcomeReason(g); got != st.End {
			c.fail(&vg, i, before, "after %q (ply %d): outcome %q, want %q", *st.In, g.Plies(), got, st.End)
		}
	}
}

var conformanceFile = flag.String("chessjs.vectors", "", "check the vectors in this file (gen.js output) instead of running gen.js")

// TestConformanceFile checks saved vectors, for working on a failure
// without waiting for chess.js.
func TestConformanceFile(t *testing.T) {
	if *conformanceFile == "" {
		t.Skip("no -chessjs.vectors file")
	}
	data, err := os.ReadFile(*conformanceFile)
	if err != nil {
		t.Fatal(err)
	}
	c := &conformance{t: t}
	dec := json.NewDecoder(bytes.NewReader(data))
	for c.failures < 25 {
		var vg vectorGame
		if err := dec.Decode(&vg); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		c.game(vg)
	}
	t.Logf("%d move checks in %d games", c.probes+c.played, c.games)
}
