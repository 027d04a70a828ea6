package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// crashEnv names the store file the re-executed test binary writes to.
const crashEnv = "VESPER_STORE_CRASH_CHILD"

const crashRelay = "wss://crash.example"

// crashChild writes to the store forever, printing a line for each write
// only after the call that made it returned nil: single events, batches,
// cursor moves and outbox duties. The parent kills it with SIGKILL.
func crashChild() int {
	path := os.Getenv(crashEnv)
	s, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx := context.Background()
	k := nostr.GenerateKey()
	// Unbuffered: each Fprintf is one write(2) of less than PIPE_BUF bytes,
	// so a line is in the pipe whole, or not at all, when the kill comes.
	out := os.Stdout
	// A safety net: if the parent never kills us, stop on our own.
	deadline := time.Now().Add(testkit.Scale(60 * time.Second))
	base := time.Now().Unix()
	for i := 0; time.Now().Before(deadline); i++ {
		at := base + int64(i)
		ch := nostr.NewChallenge(nostr.GameChess, "", at)
		if err := k.Sign(ch); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		switch i % 4 {
		case 0, 1:
			if _, err := s.PutEvent(ctx, ch, nostr.MarshalEvent(ch), crashRelay, at); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			fmt.Fprintf(out, "event %s\n", ch.ID)
		case 2:
			mv := nostr.NewMove(ch.ID, 1, "e2e4", at)
			if err := k.Sign(mv); err != nil {
				return 2
			}
			batch := []Incoming{{Event: ch, Relay: crashRelay, SeenAt: at}, {Event: mv, Relay: crashRelay, SeenAt: at}}
			if _, err := s.PutEvents(ctx, batch); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			fmt.Fprintf(out, "event %s\nevent %s\n", ch.ID, mv.ID)
		case 3:
			duty := "claim:" + ch.ID
			if _, _, err := s.OutboxAdd(ctx, duty, ch); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			fmt.Fprintf(out, "duty %s\n", duty)
		}
		if err := s.SetCursor(ctx, crashRelay, at); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Fprintf(out, "cursor %d\n", at)
	}
	return 3
}

// A writer killed with SIGKILL at an arbitrary moment loses nothing it had
// acknowledged, and the cursor it had set is where a restart resumes.
func TestCrashLosesNoAcknowledgedWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	var events, duties []string
	var cursor int64
	// Several rounds on one file: each restart must also recover the
	// previous crash's WAL before writing on.
	for round, killAfter := range []int{40, 97, 151} {
		got := runAndKill(t, path, killAfter)
		for _, line := range got {
			kind, val, _ := strings.Cut(line, " ")
			switch kind {
			case "event":
				events = append(events, val)
			case "duty":
				duties = append(duties, val)
			case "cursor":
				n, err := strconv.ParseInt(val, 10, 64)
				if err != nil {
					t.Fatalf("round %d: bad line %q", round, line)
				}
				cursor = max(cursor, n)
			default:
				t.Fatalf("round %d: bad line %q", round, line)
			}
		}
		t.Logf("round %d: %d lines acknowledged before the kill", round, len(got))
		checkAcknowledged(t, path, events, duties, cursor)
	}
}

// runAndKill starts a writer child, kills it once it has acknowledged at
// least n writes, and returns every line it printed.
func runAndKill(t *testing.T, path string, n int) []string {
	t.Helper()
	// This process reads while the child writes, as `vesper matches` does
	// beside a running daemon: every acknowledged event is visible at once.
	rd, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	killed := false
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if id, ok := strings.CutPrefix(sc.Text(), "event "); ok && !killed {
			if has, err := rd.HasEvent(t.Context(), id); err != nil || !has {
				t.Errorf("reader: acknowledged event %s not visible (%v)", id, err)
			}
		}
		if !killed && len(lines) >= n {
			// Mid-run: the child is busy in its next write.
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	// Lines already in the pipe when it died were acknowledged too.
	err = cmd.Wait()
	if !killed {
		t.Fatalf("child exited before the kill: %v", err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v", err)
	}
	// The dead writer leaves its WAL behind: the next Open must recover
	// from it, which is what this test is about.
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no WAL left by the killed writer: %v", err)
	}
	return lines
}

func checkAcknowledged(t *testing.T, path string, events, duties []string, cursor int64) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()
	var ok string
	if err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check = %q, %v", ok, err)
	}
	for _, id := range events {
		if has, err := s.HasEvent(ctx, id); err != nil || !has {
			t.Errorf("acknowledged event %s lost (%v)", id, err)
		}
	}
	for _, d := range duties {
		if has, err := s.OutboxHas(ctx, d); err != nil || !has {
			t.Errorf("acknowledged duty %s lost (%v)", d, err)
		}
	}
	got, err := s.Cursor(ctx, crashRelay)
	if err != nil {
		t.Fatal(err)
	}
	if got < cursor {
		t.Errorf("cursor = %d, acknowledged %d", got, cursor)
	}
}
