package analysis

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/internal/testkit"
)

// fakeEngine writes a shell script that speaks just enough UCI, running
// onGo for every go command, and returns its path.
func fakeEngine(t *testing.T, onGo string) string {
	t.Helper()
	return script(t, `while read -r line; do
  case "$line" in
    uci) echo "id name fake"; echo "option name Hash type spin default 16 min 1 max 64"; echo uciok ;;
    isready) echo readyok ;;
    go*) `+onGo+` ;;
    quit) exit 0 ;;
  esac
done`)
}

func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "engine")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBadEngines: an engine that is missing, dies, hangs or answers
// garbage gives an *EngineError that says what happened, promptly, and
// never a panic or a hang.
func TestBadEngines(t *testing.T) {
	fools := finished(t, "chess", []string{"f2f3", "e7e5", "g2g4", "d8h4"})
	for _, tt := range []struct {
		name    string
		path    func(t *testing.T) string
		timeout time.Duration
		want    string
	}{
		{"missing", func(t *testing.T) string { return filepath.Join(t.TempDir(), "no-such-engine") }, 0, "no such file"},
		{"exits at once", func(t *testing.T) string { return script(t, "echo 'fake: no network' >&2; exit 3") }, 0, "exit status 3"},
		{"garbage, then exits", func(t *testing.T) string { return script(t, "read -r line; echo hello; echo 'not uci'") }, 0, "output ended while waiting for uciok"},
		{"garbage forever", func(t *testing.T) string { return script(t, "while :; do echo garbage; done") }, 300 * time.Millisecond, "no uciok within"},
		{"a line without end", func(t *testing.T) string { return script(t, "while :; do printf xxxxxxxxxxxxxxxx; done") }, 0, "longer than"},
		{"illegal best move", func(t *testing.T) string {
			return fakeEngine(t, `echo "info depth 1 score cp 0 pv e2e5"; echo "bestmove e2e5"`)
		}, 0, `bestmove "e2e5", not a legal move`},
		{"no score", func(t *testing.T) string { return fakeEngine(t, `echo "bestmove e2e4"`) }, 0, "without an exact score"},
		{"unreadable score", func(t *testing.T) string {
			return fakeEngine(t, `echo "info depth 1 score cp banana"; echo "bestmove e2e4"`)
		}, 0, `unreadable score "banana"`},
		{"dies when asked to search", func(t *testing.T) string {
			return fakeEngine(t, `echo "info string fake: out of memory"; exit 1`)
		}, 0, "exit status 1"},
		// The timeout bounds the handshake too, which must not run out
		// first on a busy machine: 3 s, for a wait that does run out.
		{"never answers a search", func(t *testing.T) string { return fakeEngine(t, "true") }, 3 * time.Second, "no bestmove within"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			_, err := Analyse(t.Context(), fools, Options{Path: tt.path(t), Depth: 1, Timeout: testkit.Scale(tt.timeout)})
			var ee *EngineError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want an *EngineError saying %q", err, tt.want)
			}
			// Not a budget: only a wait without its timeout takes this long.
			if d := time.Since(start); d > testkit.Scale(30*time.Second) {
				t.Errorf("took %v", d)
			}
			t.Log(err)
		})
	}
}

// TestCancel: a cancelled context stops a search that would never end,
// returns the context's error, and the engine is ended.
func TestCancel(t *testing.T) {
	fools := finished(t, "chess", []string{"f2f3", "e7e5", "g2g4", "d8h4"})
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(200*time.Millisecond))
	defer cancel()
	a, err := New(Options{Path: fakeEngine(t, "true"), Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Analyse(ctx, fools); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want the deadline", err)
	}
	if a.eng != nil {
		t.Error("the engine is still kept after a cancelled search")
	}
	if err := a.Close(); err != nil {
		t.Error(err)
	}
	// The built-in engine stops too: an unbounded depth, cancelled.
	ctx2, cancel2 := context.WithTimeout(t.Context(), testkit.Scale(200*time.Millisecond))
	defer cancel2()
	if _, err := Analyse(ctx2, fools, Options{Depth: 60}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("built-in: err %v, want the deadline", err)
	}
}

func stockfish(t *testing.T) string {
	t.Helper()
	path, err := FindStockfish("")
	if err != nil {
		t.Skip(err)
	}
	return path
}

// TestEngineDiesBetweenGames: Stockfish killed between two games fails the
// next analysis with an *EngineError, and the one after starts a new
// engine and succeeds.
func TestEngineDiesBetweenGames(t *testing.T) {
	st := finished(t, "chess", []string{"f2f3", "e7e5", "g2g4", "d8h4"})
	a, err := New(Options{Path: stockfish(t), Depth: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	want, err := a.Analyse(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(a.eng.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var ee *EngineError
	if _, err := a.Analyse(t.Context(), st); !errors.As(err, &ee) {
		t.Fatalf("after the kill: err %v, want an *EngineError", err)
	}
	got, err := a.Analyse(t.Context(), st)
	if err != nil {
		t.Fatalf("with a new engine: %v", err)
	}
	if string(Marshal(got)) != string(Marshal(want)) {
		t.Errorf("the new engine graded differently:\n%s\n%s", Marshal(got), Marshal(want))
	}
}

// TestNice: every thread of the engine runs at our niceness plus Nice,
// and the thread that asked keeps its own. (Nice values are per thread on
// Linux; /proc/self/stat is the main thread's, which the runtime may have
// lent to the goroutine that started the engine and then parked: it is
// not this test's thread.)
func TestNice(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ours := niceOf(t, "/proc/thread-self/stat")
	path := stockfish(t)
	st := finished(t, "chess", []string{"f2f3", "e7e5", "g2g4", "d8h4"})
	a, err := New(Options{Path: path, Depth: 2, Nice: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Analyse(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", a.eng.pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no threads: %v", err)
	}
	for _, task := range tasks {
		if got, want := niceOf(t, task), min(19, ours+5); got != want {
			t.Errorf("%s: nice %d, want %d", task, got, want)
		}
	}
	if got := niceOf(t, "/proc/thread-self/stat"); got != ours {
		t.Errorf("this thread's nice is %d, was %d", got, ours)
	}
}

// niceOf reads field 19 of a /proc stat file; the fields are counted after
// the command name, which may hold spaces.
func niceOf(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	n, err := strconv.Atoi(f[19-3])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFindStockfish(t *testing.T) {
	if _, err := FindStockfish(t.TempDir()); err == nil {
		t.Error("a directory was accepted")
	}
	plain := filepath.Join(t.TempDir(), "sf")
	if err := os.WriteFile(plain, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := FindStockfish(plain); err == nil {
		t.Error("a file that is not executable was accepted")
	}
	exe := script(t, "exit 0")
	if got, err := FindStockfish(exe); err != nil || got != exe {
		t.Errorf("explicit: %q %v", got, err)
	}
	// Without PATH the Debian location is the fallback.
	t.Setenv("PATH", "")
	got, err := FindStockfish("")
	if _, statErr := os.Stat(DebianStockfish); statErr == nil {
		if err != nil || got != DebianStockfish {
			t.Errorf("without PATH: %q %v, want %s", got, err, DebianStockfish)
		}
	} else if !errors.Is(err, ErrNoStockfish) {
		t.Errorf("without PATH or %s: %q %v", DebianStockfish, got, err)
	}
}

func TestParseScore(t *testing.T) {
	for _, tt := range []struct {
		line     string
		cp, mate int
		ok       bool
		err      bool
	}{
		{"depth 12 seldepth 13 multipv 1 score cp 49 nodes 26407 pv b5a4", 49, 0, true, false},
		{"depth 5 score mate -3 nodes 10", 0, -3, true, false},
		{"depth 12 score cp 30 lowerbound nodes 1", 0, 0, false, false},
		{"depth 12 score cp 30 upperbound", 0, 0, false, false},
		{"depth 12 multipv 2 score cp 10", 0, 0, false, false},
		{"depth 12 currmove e2e4 currmovenumber 1", 0, 0, false, false},
		{"string the score cp is not a score", 0, 0, false, false},
		{"depth 1 score cp", 0, 0, false, true},
		{"depth 1 score cp 1.5", 0, 0, false, true},
		{"depth 1 score mate 0", 0, 0, false, true},
		{"depth 1 score wdl 500", 0, 0, false, true},
	} {
		cp, mate, ok, err := parseScore(strings.Fields(tt.line))
		if cp != tt.cp || mate != tt.mate || ok != tt.ok || (err != nil) != tt.err {
			t.Errorf("%q: %d %d %v %v", tt.line, cp, mate, ok, err)
		}
	}
}
