package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/internal/benchfx"
	"vesper/internal/sim"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
	"vesper/store"
)

// BenchmarkDaemonStart runs the real daemon (`vesper daemon`, verify only,
// one embedded relay) on a store of N matches (-vesper.scale, the scale
// fixture) as a running daemon leaves it: every summary written by this
// fold, 1% of the matches open. It reports the time from the process's
// start until a challenge published at that moment is stored (first-s),
// resident memory once started and settled (rss-start-MB), and again after
// a day of live traffic (a simulated day of new matches, N/60 of them,
// played out and published while it runs: rss-day-MB), with the
// high-water mark.
//
//	go test ./cmd/vesper -run '^$' -bench DaemonStart -benchtime 1x -timeout 2h -vesper.scale 1000,10000
//	go test ./cmd/vesper -run '^$' -bench DaemonStart -benchtime 1x -timeout 2h -vesper.scale 1000,10000 -vesper.start weeks5
//
// With -vesper.start weeks5 the store is the one `vesper rebuild` leaves,
// unfinished matches untouched, and the daemon starts on today's clock,
// which must be at least five weeks after the fixture's season (issue 28:
// a game abandoned during the season is then one whose clock ran out
// weeks ago, unclaimed). folded and dormant are the start's counts.
// -vesper.dormant-after D passes --dormant-after D to the daemon: 0 keeps
// every unfinished match, as a daemon did before dormancy (the "before"
// figures), and makes "end" the season's end, when the 1% open matches
// are live.
func BenchmarkDaemonStart(b *testing.B) {
	benchfx.EachSize(b, func(b *testing.B, fx benchfx.Fixture) {
		open := fx.Meta.Matches / 100
		switch *startAt {
		case "end":
		case "weeks5":
			if weeks := float64(time.Now().Unix()-fx.Meta.End) / (7 * 86400); weeks < 5 {
				b.Fatalf("today is %.1f weeks after the fixture's season, not five", weeks)
			}
			open = -1
		default:
			b.Fatalf("-vesper.start %q: want end or weeks5", *startAt)
		}
		base := foldedStore(b, fx, open)
		for range b.N {
			benchDaemonStart(b, fx, base)
		}
	})
}

// startAt is the store BenchmarkDaemonStart starts on: "end", the season's
// end as a running daemon leaves it (all but 1% of the unfinished matches
// final), or "weeks5", five weeks on (every unfinished match as the season
// left it: issue 28).
var startAt = flag.String("vesper.start", "end", `BenchmarkDaemonStart's store: "end" (1% of matches open) or "weeks5" (five weeks after the season: every abandoned game unclaimed)`)

// dormantAfter is BenchmarkDaemonStart's --dormant-after ("": the daemon's
// default).
var dormantAfter = flag.String("vesper.dormant-after", "", "BenchmarkDaemonStart: the daemon's --dormant-after (0: nothing goes dormant)")

// foldedStore is the fixture's store re-folded by this build (`vesper
// rebuild`), with all but open of its unfinished matches marked final as
// if they had finished (open < 0: none marked): cached beside the
// fixture, per fold version.
func foldedStore(b *testing.B, fx benchfx.Fixture, open int) string {
	b.Helper()
	name := fmt.Sprintf("folded-v%d-schema%d-open%d-sync.db", match.FoldVersion, store.SchemaVersion, open)
	if open < 0 {
		name = fmt.Sprintf("folded-v%d-schema%d-asis-sync.db", match.FoldVersion, store.SchemaVersion)
	}
	path := filepath.Join(fx.Dir, name)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	start := time.Now()
	tmp := benchfx.CopyStore(b, fx)
	if out, err := exec.Command(binPath, "rebuild", "--data", filepath.Dir(tmp)).CombinedOutput(); err != nil {
		b.Fatalf("rebuild: %v\n%s", err, out)
	}
	db, err := sql.Open("sqlite", tmp)
	if err != nil {
		b.Fatal(err)
	}
	if open >= 0 {
		if _, err := db.Exec(`UPDATE summaries SET final = 1 WHERE final = 0 AND status != 'expired' AND match NOT IN
		(SELECT match FROM summaries WHERE final = 0 AND status != 'expired' ORDER BY match LIMIT ?)`, open); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	// A running daemon's store has the sync's index (made once, at its
	// first sync): a start measured without it would time its creation.
	st, err := store.Open(tmp)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.PrepareSync(context.Background()); err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	b.Logf("folded the fixture's store (%d open) in %v", open, time.Since(start).Round(time.Second))
	return path
}

func benchDaemonStart(b *testing.B, fx benchfx.Fixture, base string) {
	b.StopTimer()
	data := b.TempDir()
	dbPath := filepath.Join(data, "vesper.db")
	benchfx.CopyFile(b, base, dbPath)
	rl, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer rl.Close()
	logPath := filepath.Join(data, "daemon.log")
	logf, err := os.Create(logPath)
	if err != nil {
		b.Fatal(err)
	}
	defer logf.Close()
	probe := testkit.Sign(testkit.Key("bench-probe"), nostr.NewChallenge(nostr.GameChess, "", time.Now().Unix()))
	args := []string{"daemon", "--data", data, "--relays", rl.URL(), "--tick", "1m", "--no-play", "--no-arbiter"}
	if *dormantAfter != "" {
		args = append(args, "--dormant-after", *dormantAfter)
	}
	cmd := exec.Command(binPath, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	b.StartTimer()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() }()
	publishIndependentB(b, rl.URL(), probe)
	ro, err := store.OpenReadOnly(dbPath)
	if err != nil {
		b.Fatal(err)
	}
	defer ro.Close()
	stored := func(id string) bool {
		ok, err := ro.HasEvent(context.Background(), id)
		return err == nil && ok
	}
	if !pollB(10*time.Minute, func() bool { return stored(probe.ID) }) {
		raw, _ := os.ReadFile(logPath)
		b.Fatalf("the probe was not stored:\n%s", raw)
	}
	first := time.Since(start)
	b.StopTimer()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	if !waitLog(logPath, "relays backfilled and synced", 10*time.Minute) {
		b.Fatal("the daemon did not finish its first sync")
	}
	time.Sleep(2 * time.Second) // settle: the first tick and the relay session
	rssStart := benchfx.ProcStatusMB(status, "VmRSS:")

	// A day of live traffic: N/60 new matches (the fixture's season is 60
	// days), played out and published while the daemon runs.
	day, err := sim.Generate(sim.Config{Seed: fx.Meta.Seed + 1, Agents: fx.Meta.Agents, Matches: max(20, fx.Meta.Matches/60),
		From: fx.Meta.Matches, Days: 1, End: time.Now().Unix(), Long: true})
	if err != nil {
		b.Fatal(err)
	}
	evs := day.Events()
	dayStart := time.Now()
	publishIndependentB(b, rl.URL(), evs...)
	last := evs[len(evs)-1]
	if !pollB(30*time.Minute, func() bool { return stored(last.ID) }) {
		b.Fatal("the day's events were not stored")
	}
	dayIngest := time.Since(dayStart)
	time.Sleep(2 * time.Second)
	rssDay, hwm := benchfx.ProcStatusMB(status, "VmRSS:"), benchfx.ProcStatusMB(status, "VmHWM:")
	if keep := os.Getenv("VESPER_BENCH_LOG"); keep != "" {
		benchfx.CopyFile(b, logPath, keep) // the daemon's log, for a look at what it did
	}
	// What the start folded and left dormant, from its log line.
	if raw, err := os.ReadFile(logPath); err == nil {
		for _, kv := range []struct{ key, unit string }{{"matches_folded", "folded"}, {"dormant", "dormant"}} {
			if m := regexp.MustCompile(`daemon started.* ` + kv.key + `=(\d+)`).FindSubmatch(raw); m != nil {
				v, _ := strconv.Atoi(string(m[1]))
				b.ReportMetric(float64(v), kv.unit)
			}
		}
	}
	b.ReportMetric(first.Seconds(), "first-s")
	b.ReportMetric(rssStart, "rss-start-MB")
	b.ReportMetric(rssDay, "rss-day-MB")
	b.ReportMetric(hwm, "peak-RSS-MB")
	b.ReportMetric(float64(len(evs)), "day-events")
	b.ReportMetric(dayIngest.Seconds(), "day-publish-ingest-s")
}

// publishIndependentB sends events to url on one connection of its own
// and waits for each OK.
func publishIndependentB(b *testing.B, url string, evs ...*nostr.Event) {
	b.Helper()
	publishWithin(b, url, 30*time.Minute, evs...)
}

// pollB polls cond until it holds or d (scaled by $VESPER_TEST_SCALE)
// passes.
func pollB(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(testkit.Scale(d))
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func waitLog(path, what string, d time.Duration) bool {
	return pollB(d, func() bool {
		raw, err := os.ReadFile(path)
		return err == nil && strings.Contains(string(raw), what)
	})
}
