package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/internal/sim"
	"vesper/internal/testkit"
)

// logWriter sends progress lines to the test log.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// TestSimSeasonWithFaults is `vesper sim` at a small size: a seeded season
// over five relays (clean, dropping, delaying, duplicating with garbage,
// going down), the daemon killed with SIGKILL three times, then the
// daemon's summaries must equal the offline fold of everything the relays
// hold (PROTOCOL.md section 2: same events, any order, any number of
// relays and copies, same state). The full size is
// `vesper sim --agents 50` (docs/PERFORMANCE.md).
func TestSimSeasonWithFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("a simulated season takes about a minute")
	}
	fleet := sim.DefaultFleet()
	for i := range fleet { // faster cycles, so that a short run meets each fault
		if fleet[i].DownEvery > 0 {
			fleet[i].DownEvery, fleet[i].DownFor = 5*time.Second, 3*time.Second
		}
		if fleet[i].Fault.Drop > 0 {
			fleet[i].Fault.Drop = 2 * time.Second
		}
	}
	// No total deadline (go test's -timeout is the backstop): the run ends
	// when the daemon agrees with the relays, or fails when it has made no
	// progress for Stall, so a loaded host makes it longer, not red.
	o := sim.Options{Agents: 8, Matches: 48, Days: 10, Seed: 7, Live: 20 * time.Second, Kills: 3,
		Stall: testkit.Scale(90 * time.Second), StopWait: testkit.Scale(20 * time.Second),
		Dir: t.TempDir(), Fleet: fleet, BuildSite: simSite}
	rep, err := sim.Run(context.Background(), o, binPath, logWriter{t})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out)
	t.Log("\n" + out.String())
	if !rep.OK {
		t.Fatalf("the simulation failed its checks; the daemon's log is %s/daemon.log", rep.Dir)
	}

	// The run must have met every fault it claims to survive.
	if rep.Kills != o.Kills || rep.Starts != o.Kills+1 {
		t.Errorf("killed %d times, started %d times; want %d and %d", rep.Kills, rep.Starts, o.Kills, o.Kills+1)
	}
	byName := map[string]sim.MemberStats{}
	for _, m := range rep.Relays {
		byName[m.Name] = m
	}
	for _, c := range []struct {
		what string
		got  int64
	}{
		{"connections dropped", byName["drop"].Proxy.Drops},
		{"chunks delayed", byName["delay"].Proxy.Delayed},
		{"events sent twice", byName["dup"].Proxy.Duplicated},
		{"garbage frames", byName["dup"].Proxy.Garbage},
		{"times a relay went down", int64(byName["down"].Downs)},
	} {
		if c.got == 0 {
			t.Errorf("no %s", c.what)
		}
	}
	// (Open challenges are not required: the daemon may accept them.)
	for _, s := range []string{"over", "active", "expired"} {
		if rep.Statuses[s] == 0 {
			t.Errorf("no match ended %s; statuses %v", s, rep.Statuses)
		}
	}
	for _, by := range []string{"signatures", "timeout", "ruling"} {
		if rep.FinalBy[by] == 0 {
			t.Errorf("no match final by %s; final_by %v", by, rep.FinalBy)
		}
	}
	// Issue 26: every game page of the season's site opens on the board.
	t.Run("BoardFirstInBrowser", func(t *testing.T) {
		checkBoardFirst(t, filepath.Join(o.Dir, "site"), 10)
	})
}

// TestSimCommandFlags: the command parses its flags and documents them
// (the season itself is TestSimSeasonWithFaults).
func TestSimCommandFlags(t *testing.T) {
	app := &cli.App{Commands: []*cli.Command{simCommand()}, Writer: &strings.Builder{}}
	if err := app.Run([]string{"vesper", "sim", "--help"}); err != nil {
		t.Fatal(err)
	}
	help := app.Writer.(*strings.Builder).String()
	for _, flag := range []string{"--agents", "--seed", "--live", "--kills", "--stall", "--dir"} {
		if !strings.Contains(help, flag) {
			t.Errorf("help does not mention %s:\n%s", flag, help)
		}
	}
}
