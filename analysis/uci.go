package analysis

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EngineError is a failure of the engine rather than of the game: it is
// missing, died, took longer than the timeout or answered something that is
// not UCI. Another try, or another engine, may succeed.
type EngineError struct {
	Engine string // what ran: a path, or "vesper" for the built-in engine
	Err    error
}

func (e *EngineError) Error() string { return "analysis: engine " + e.Engine + ": " + e.Err.Error() }

func (e *EngineError) Unwrap() error { return e.Err }

// maxLine bounds one line of engine output: a UCI line is short (a long PV
// is a few hundred bytes), and an engine spewing without newlines must
// not grow a buffer without end.
const maxLine = 64 << 10

// uciEngine is one engine session speaking UCI over a pair of streams, an
// external process's or the built-in engine's pipes.
type uciEngine struct {
	label   string
	w       io.Writer
	timeout time.Duration

	lines    chan string   // the engine's output, a line at a time; closed at its end
	quit     chan struct{} // closed by close: the reader drops lines from then on
	readDone chan struct{} // closed when the reader has returned
	readErr  error         // why the output ended, set before lines is closed
	end      func(kill bool) error
	stderr   *tail // nil for the built-in engine
	once     sync.Once
	endErr   error
	lastInfo string // the last "info string", shown when the engine fails

	name    string
	options map[string]string // advertised options, lower-case name → default
	pid     int               // the external engine's process, 0 for the built-in one
}

func newUCI(label string, w io.Writer, timeout time.Duration) *uciEngine {
	return &uciEngine{label: label, w: w, timeout: timeout,
		lines: make(chan string, 64), quit: make(chan struct{}), readDone: make(chan struct{})}
}

// read runs in its own goroutine until the output ends. It keeps reading
// after close, dropping lines, so an engine blocked writing (an io.Pipe
// blocks until read) can always finish.
func (e *uciEngine) read(r io.Reader) {
	defer close(e.readDone)
	br := bufio.NewReaderSize(r, maxLine)
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			e.readErr = fmt.Errorf("printed a line longer than %d bytes", maxLine)
			close(e.lines)
			// Drain the rest, until the engine is ended, so that it is
			// never stuck on a full pipe meanwhile.
			_, _ = io.Copy(io.Discard, br)
			return
		}
		if len(b) > 0 {
			line := strings.TrimRight(string(b), "\r\n")
			select {
			case e.lines <- line:
			case <-e.quit:
			}
		}
		if err != nil {
			e.readErr = err
			close(e.lines)
			return
		}
	}
}

// close ends the engine: politely when kill is false (quit, then a grace
// period), at once otherwise. It is safe to call more than once.
func (e *uciEngine) close(kill bool) error {
	e.once.Do(func() {
		close(e.quit)
		e.endErr = e.end(kill)
	})
	return e.endErr
}

func (e *uciEngine) send(cmd string) error {
	if _, err := io.WriteString(e.w, cmd+"\n"); err != nil {
		return e.fail(fmt.Errorf("sending %q: %w", firstWord(cmd), err))
	}
	return nil
}

// fail wraps err as an EngineError and kills the engine, adding how it
// ended and what it said last, which is where an engine explains itself.
func (e *uciEngine) fail(err error) error {
	end := e.close(true)
	msg := err.Error()
	if end != nil && !errors.Is(end, errKilled) {
		msg += " (" + end.Error() + ")"
	}
	if e.lastInfo != "" {
		msg += "; it said: " + e.lastInfo
	}
	if e.stderr != nil {
		if t := e.stderr.String(); t != "" {
			msg += "; stderr: " + t
		}
	}
	return &EngineError{Engine: e.label, Err: errors.New(msg)}
}

// errKilled is the end of an engine that close(true) killed: the kill is
// ours, not news.
var errKilled = errors.New("killed")

// await hands each line to handle until it reports done, failing on the
// end of the output, a handler error or the timeout. A cancelled ctx
// returns ctx.Err(); the caller then closes the engine.
func (e *uciEngine) await(ctx context.Context, what string, handle func(f []string) (bool, error)) error {
	timer := time.NewTimer(e.timeout)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-e.lines:
			if !ok {
				why := "its output ended"
				if e.readErr != nil && !errors.Is(e.readErr, io.EOF) {
					why = e.readErr.Error()
				}
				return e.fail(fmt.Errorf("%s while waiting for %s", why, what))
			}
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			if len(f) > 2 && f[0] == "info" && f[1] == "string" {
				e.lastInfo = strings.Join(f[2:], " ")
			}
			done, err := handle(f)
			if err != nil {
				return e.fail(err)
			}
			if done {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return e.fail(fmt.Errorf("no %s within %v", what, e.timeout))
		}
	}
}

// handshake is "uci" up to "uciok": the engine's name and options.
func (e *uciEngine) handshake(ctx context.Context) error {
	if err := e.send("uci"); err != nil {
		return err
	}
	e.options = map[string]string{}
	return e.await(ctx, "uciok", func(f []string) (bool, error) {
		switch f[0] {
		case "id":
			if len(f) > 2 && f[1] == "name" {
				e.name = strings.Join(f[2:], " ")
			}
		case "option":
			name, def := parseOption(f[1:])
			if name != "" {
				e.options[strings.ToLower(name)] = def
			}
		case "uciok":
			return true, nil
		}
		return false, nil
	})
}

// parseOption reads "name <id...> type <t> [default <x...>] ...".
func parseOption(f []string) (name, def string) {
	var cur *[]string
	var nameW, defW []string
	for _, w := range f {
		switch w {
		case "name":
			cur = &nameW
		case "default":
			cur = &defW
		case "type", "min", "max", "var":
			cur = nil
		default:
			if cur != nil {
				*cur = append(*cur, w)
			}
		}
	}
	return strings.Join(nameW, " "), strings.Join(defW, " ")
}

// has reports an advertised option.
func (e *uciEngine) has(option string) bool {
	_, ok := e.options[strings.ToLower(option)]
	return ok
}

// configure sets what makes a fixed-depth search repeatable: one thread
// (several make the tree depend on timing), a fixed hash size and one PV.
func (e *uciEngine) configure(ctx context.Context, hashMB int) error {
	for _, o := range []struct{ name, value string }{
		{"Threads", "1"},
		{"Hash", strconv.Itoa(hashMB)},
		{"MultiPV", "1"},
		{"Ponder", "false"},
	} {
		if !e.has(o.name) {
			continue
		}
		if err := e.send("setoption name " + o.name + " value " + o.value); err != nil {
			return err
		}
	}
	return e.ready(ctx)
}

func (e *uciEngine) ready(ctx context.Context) error {
	if err := e.send("isready"); err != nil {
		return err
	}
	return e.await(ctx, "readyok", func(f []string) (bool, error) { return f[0] == "readyok", nil })
}

// newGame forgets every earlier search (ucinewgame, and Clear Hash where
// offered), so that a game's numbers do not depend on the games before.
func (e *uciEngine) newGame(ctx context.Context) error {
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	if e.has("Clear Hash") {
		if err := e.send("setoption name Clear Hash"); err != nil {
			return err
		}
	}
	return e.ready(ctx)
}

// searchResult is one position's search: the score from the side to move,
// in centipawns or a mate distance, and the best move in UCI.
type searchResult struct {
	cp, mate int
	best     string
}

// search evaluates the position after moves (UCI, from the start) at the
// given depth and node limits (zero: none; never both).
func (e *uciEngine) search(ctx context.Context, moves []string, depth int, nodes int64) (searchResult, error) {
	pos := "position startpos"
	if len(moves) > 0 {
		pos += " moves " + strings.Join(moves, " ")
	}
	goCmd := "go"
	if depth > 0 {
		goCmd += " depth " + strconv.Itoa(depth)
	}
	if nodes > 0 {
		goCmd += " nodes " + strconv.FormatInt(nodes, 10)
	}
	if err := e.send(pos); err != nil {
		return searchResult{}, err
	}
	if err := e.send(goCmd); err != nil {
		return searchResult{}, err
	}
	var res searchResult
	scored := false
	err := e.await(ctx, "bestmove", func(f []string) (bool, error) {
		switch f[0] {
		case "info":
			cp, mate, ok, err := parseScore(f[1:])
			if err != nil {
				return false, err
			}
			if ok {
				res.cp, res.mate, scored = cp, mate, true
			}
		case "bestmove":
			if len(f) < 2 {
				return false, errors.New(`answered "bestmove" without a move`)
			}
			res.best = f[1]
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return searchResult{}, err
	}
	if !scored {
		return searchResult{}, e.fail(fmt.Errorf("answered bestmove %s without an exact score", res.best))
	}
	return res, nil
}

// parseScore reads an info line's score. Bounds (a failed aspiration
// window) and secondary PVs are not the position's value and report
// ok=false, as does an info line without a score; a score that is not a
// number is an error.
func parseScore(f []string) (cp, mate int, ok bool, err error) {
	at := -1
	for i, w := range f {
		switch w {
		case "multipv":
			if i+1 < len(f) && f[i+1] != "1" {
				return 0, 0, false, nil
			}
		case "lowerbound", "upperbound":
			return 0, 0, false, nil
		case "score":
			at = i
		case "string":
			if at < 0 {
				return 0, 0, false, nil // the rest is free text
			}
		}
	}
	if at < 0 {
		return 0, 0, false, nil
	}
	if at+2 >= len(f) {
		return 0, 0, false, fmt.Errorf("unreadable score in %q", strings.Join(f, " "))
	}
	n, perr := strconv.Atoi(f[at+2])
	switch {
	case perr != nil:
		return 0, 0, false, fmt.Errorf("unreadable score %q", f[at+2])
	case f[at+1] == "cp":
		return n, 0, true, nil
	case f[at+1] == "mate" && n != 0:
		return 0, n, true, nil
	case f[at+1] == "mate":
		// Mate 0 is a position already mated, never one searched here.
		return 0, 0, false, errors.New("answered mate 0 in a position with legal moves")
	}
	return 0, 0, false, fmt.Errorf("unknown score type %q", f[at+1])
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// tail keeps the last bytes written to it: an engine's stderr, for error
// messages.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 2 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(bytes.ReplaceAll(bytes.TrimSpace(t.buf), []byte("\n"), []byte(" | ")))
}
