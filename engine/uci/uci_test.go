package uci

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	"vesper/engine/board"
	"vesper/internal/testkit"
)

// driver runs Run on a pair of pipes, the way a GUI talks to an engine.
type driver struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

func start(t *testing.T) *driver {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	d := &driver{t: t, in: inW, lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() {
		err := Run(inR, outW)
		outW.Close()
		d.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-d.done:
		case <-time.After(testkit.Scale(10 * time.Second)):
			t.Error("Run did not return after its input closed")
		}
	})
	return d
}

func (d *driver) send(cmds ...string) {
	d.t.Helper()
	for _, c := range cmds {
		if _, err := io.WriteString(d.in, c+"\n"); err != nil {
			d.t.Fatalf("send %q: %v", c, err)
		}
	}
}

// expect reads lines until one starts with prefix and returns it with the
// lines before it; it fails after a generous deadline.
func (d *driver) expect(prefix string) (string, []string) {
	d.t.Helper()
	var before []string
	deadline := time.After(testkit.Scale(20 * time.Second))
	for {
		select {
		case line, ok := <-d.lines:
			if !ok {
				d.t.Fatalf("output ended waiting for %q; got %q", prefix, before)
			}
			if strings.HasPrefix(line, prefix) {
				return line, before
			}
			before = append(before, line)
		case <-deadline:
			d.t.Fatalf("no %q within the deadline; got %q", prefix, before)
		}
	}
}

func (d *driver) bestmove() string {
	d.t.Helper()
	line, _ := d.expect("bestmove ")
	return strings.Fields(line)[1]
}

func legalIn(t *testing.T, fen string, moves []string, m string) {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(moves, m) {
		mv, err := p.ParseUCI(s)
		if err != nil {
			t.Fatalf("bestmove %s: %v", m, err)
		}
		p = p.Play(mv)
	}
}

func TestHandshake(t *testing.T) {
	d := start(t)
	d.send("uci")
	_, before := d.expect("uciok")
	if len(before) == 0 || !strings.HasPrefix(before[0], "id name ") {
		t.Errorf("before uciok: %q", before)
	}
	d.send("isready")
	d.expect("readyok")
	d.send("quit")
	if err := <-d.done; err != nil {
		t.Errorf("Run returned %v", err)
	}
	d.done <- nil // for the cleanup
}

func TestGoDepthAndNodes(t *testing.T) {
	d := start(t)
	moves := []string{"e2e4", "e7e5", "g1f3"}
	d.send("ucinewgame", "position startpos moves "+strings.Join(moves, " "), "go depth 4")
	line, before := d.expect("bestmove ")
	legalIn(t, board.StartFEN, moves, strings.Fields(line)[1])
	if len(before) < 4 || !strings.HasPrefix(before[len(before)-1], "info depth 4 ") {
		t.Errorf("info lines: %q", before)
	}

	// A node limit gives the same move from a fresh table.
	d.send("ucinewgame", "position startpos moves "+strings.Join(moves, " "), "go nodes 20000")
	first := d.bestmove()
	d.send("ucinewgame", "position startpos moves "+strings.Join(moves, " "), "go nodes 20000")
	if second := d.bestmove(); first != second {
		t.Errorf("nodes 20000 gave %s then %s", first, second)
	}
}

func TestMateScoreAndFEN(t *testing.T) {
	d := start(t)
	d.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", "go depth 3")
	line, before := d.expect("bestmove ")
	if line != "bestmove a1a8" {
		t.Errorf("got %q", line)
	}
	if len(before) == 0 || !strings.Contains(before[len(before)-1], "score mate 1") {
		t.Errorf("info lines: %q", before)
	}
	d.send("position fen 6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1 moves a1a2", "d")
	if line, _ := d.expect("info string fen"); !strings.HasSuffix(line, "6k1/5ppp/8/8/8/8/R4PPP/6K1 b - - 1 1") {
		t.Errorf("got %q", line)
	}
}

func TestInfiniteAndStop(t *testing.T) {
	d := start(t)
	d.send("position startpos", "go infinite")
	d.expect("info depth 3 ")
	d.send("isready")
	d.expect("readyok") // answered while searching
	d.send("stop")
	legalIn(t, board.StartFEN, nil, d.bestmove())
}

func TestClock(t *testing.T) {
	d := start(t)
	d.send("position startpos moves e2e4", "go wtime 300 btime 300 winc 0 binc 0")
	began := time.Now()
	legalIn(t, board.StartFEN, []string{"e2e4"}, d.bestmove())
	// Not a budget: a search that ignored the clock would run for minutes.
	if took := time.Since(began); took > testkit.Scale(30*time.Second) {
		t.Errorf("300 ms on the clock took %v", took)
	}
	d.send("position startpos", "go movetime 50")
	legalIn(t, board.StartFEN, nil, d.bestmove())
}

func TestBadCommands(t *testing.T) {
	d := start(t)
	d.send("position startpos moves e2e5")
	d.expect("info string")
	d.send("position fen nonsense")
	d.expect("info string")
	d.send("position")
	d.expect("info string")
	d.send("setoption name Hash value 0")
	d.expect("info string")
	d.send("setoption name Hash value 4", "flip")
	d.expect("info string unknown command")
	d.send("", "go nodes banana depth 2")
	legalIn(t, board.StartFEN, nil, d.bestmove())
	// The position of a mated side has no move.
	d.send("position startpos moves f2f3 e7e5 g2g4 d8h4", "go depth 2")
	if m := d.bestmove(); m != "0000" {
		t.Errorf("bestmove %s, want 0000", m)
	}
}

// TestEndOfInput: piped commands still get their bestmove when the input
// ends during the search.
func TestEndOfInput(t *testing.T) {
	var out strings.Builder
	err := Run(strings.NewReader("position startpos\ngo depth 3\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "bestmove ") {
		t.Errorf("output %q has no bestmove", out.String())
	}
}
