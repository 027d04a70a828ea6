package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"vesper/internal/sim"
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

func simCommand() *cli.Command {
	return &cli.Command{
		Name:  "sim",
		Usage: "simulate a season of agents over faulty local relays and check the daemon against the offline fold",
		Description: "Generates a seeded season: AGENTS keys post challenges, accepts, moves (mostly legal,\n" +
			"some illegal, late, duplicated or future-dated), results, timeout claims, arbitration\n" +
			"requests and rulings, stamped over the past DAYS days. Starts five embedded relays on\n" +
			"loopback: a clean one, one that drops connections at random, one that delays delivery\n" +
			"by seconds, one that sends every event twice with garbage frames between, and one\n" +
			"that goes down for a while and comes back. Publishes the history, runs the daemon\n" +
			"(this binary, with a key of its own) against them, publishes the season's last two\n" +
			"simulated days over LIVE of real time while killing the daemon with SIGKILL KILLS\n" +
			"times, then waits for it to catch up and checks that its stored summary of every\n" +
			"match equals the offline fold (`vesper verify`) of every event the relays hold, that\n" +
			"it stored every event and never published one duty twice, and that the site links\n" +
			"every match. Exit status 0 when every check passes, 1 otherwise.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "agents", Value: 50, Usage: "agent keys"},
			&cli.IntFlag{Name: "matches", Usage: "challenges posted (default: 8 per agent)"},
			&cli.IntFlag{Name: "days", Value: 14, Usage: "the season starts this many days ago"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "the same seed gives the same agents and games"},
			&cli.Int64Flag{Name: "end", Usage: "the season's present, unix seconds (default: now); with --seed it fixes every event"},
			&cli.DurationFlag{Name: "live", Value: time.Minute, Usage: "real time over which the season's last two simulated days are published"},
			&cli.IntFlag{Name: "kills", Value: 5, Usage: "times the daemon is killed with SIGKILL and restarted"},
			&cli.IntFlag{Name: "forged", Usage: "events with a bad id or signature stored on the relays unchecked"},
			&cli.DurationFlag{Name: "settle", Value: 10 * time.Minute, Usage: "how long the daemon may take to catch up after the faults stop"},
			&cli.StringFlag{Name: "dir", Usage: "keep the daemon's data, log and site here (default: a temporary directory, removed when every check passes)"},
			jsonFlag(),
		},
		Action: func(c *cli.Context) error {
			bin, err := os.Executable()
			if err != nil {
				return fail(exitFailure, "cannot find this binary to run the daemon: %v", err)
			}
			o := simOptions{agents: c.Int("agents"), matches: c.Int("matches"), days: c.Int("days"),
				seed: c.Uint64("seed"), end: c.Int64("end"), live: c.Duration("live"), kills: c.Int("kills"), forged: c.Int("forged"),
				settle: c.Duration("settle"), dir: c.String("dir"), fleet: sim.DefaultFleet()}
			if o.agents < 3 {
				return fail(exitUsage, "--agents: at least 3 (two players and an arbiter)")
			}
			rep, err := runSim(c.Context, o, bin, os.Stderr)
			if err != nil {
				return fail(exitFailure, "sim: %v", err)
			}
			if c.Bool("json") {
				b, _ := json.Marshal(rep)
				fmt.Println(string(b))
			} else {
				rep.print(os.Stdout)
			}
			if !rep.OK {
				return fail(exitFailure, "sim: %d check(s) failed; the data is in %s", len(rep.Failures), rep.Dir)
			}
			return nil
		},
	}
}

type simOptions struct {
	agents, matches, days int
	seed                  uint64
	end                   int64 // 0: now
	live                  time.Duration
	kills                 int
	forged                int // events with a bad id or signature put on the relays
	settle                time.Duration
	dir                   string
	fleet                 []sim.RelaySpec
}

// simReport is what a run did and found.
type simReport struct {
	OK       bool              `json:"ok"`
	Failures []string          `json:"failures"`
	Dir      string            `json:"dir"`
	Seed     uint64            `json:"seed"`
	Agents   int               `json:"agents"`
	Matches  int               `json:"matches"`
	Events   int               `json:"events"`
	History  int               `json:"history_deliveries"`
	Live     int               `json:"live_deliveries"`
	Forged   int               `json:"forged_events"`
	Plans    map[string]int    `json:"plans"`
	Statuses map[string]int    `json:"statuses"`
	FinalBy  map[string]int    `json:"final_by"`
	Ignored  int               `json:"ignored_events"`
	Kills    int               `json:"kills"`
	Starts   int               `json:"daemon_starts"`
	Daemon   map[string]int    `json:"daemon_events"`
	Relays   []sim.MemberStats `json:"relays"`
	Checked  int               `json:"matches_checked"`
	Site     string            `json:"site"`
	Notes    []string          `json:"daemon_events_ignored"`
	Timings  map[string]string `json:"timings"`
}

func (r *simReport) fail(format string, a ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, a...))
}

func (r *simReport) print(w io.Writer) {
	fmt.Fprintf(w, "season: seed %d, %d agents, %d matches, %d events (%d history deliveries, %d live, %d forged)\n",
		r.Seed, r.Agents, r.Matches, r.Events, r.History, r.Live, r.Forged)
	fmt.Fprintf(w, "plans: %s\n", fmtCounts(r.Plans))
	fmt.Fprintf(w, "folded: %s; final by %s; %d events ignored by the fold\n", fmtCounts(r.Statuses), fmtCounts(r.FinalBy), r.Ignored)
	fmt.Fprintf(w, "daemon: started %d times, killed %d times with SIGKILL; published %s\n", r.Starts, r.Kills, fmtCounts(r.Daemon))
	for _, m := range r.Relays {
		fmt.Fprintf(w, "relay %-5s %6d events, down %d times, proxy: %d connections, %d dropped, %d events doubled, %d garbage frames\n",
			m.Name, m.Events, m.Downs, m.Proxy.Conns, m.Proxy.Drops, m.Proxy.Duplicated, m.Proxy.Garbage)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: the fold ignores the daemon's %s\n", n)
	}
	fmt.Fprintf(w, "site: %s\n", r.Site)
	keys := make([]string, 0, len(r.Timings))
	for k := range r.Timings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "time %s: %s\n", k, r.Timings[k])
	}
	if r.OK {
		fmt.Fprintf(w, "OK: %d matches, the daemon's summaries equal the offline fold of the relays' events\n", r.Checked)
		return
	}
	for _, f := range r.Failures {
		fmt.Fprintf(w, "FAIL: %s\n", f)
	}
}

func fmtCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		name := k
		if name == "" {
			name = "-"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// runSim runs one simulation; bin is the vesper binary the daemon runs
// from, and progress lines go to logw. An error means the run could not
// be carried out; failed checks are in the report.
func runSim(ctx context.Context, o simOptions, bin string, logw io.Writer) (*simReport, error) {
	began := time.Now()
	say := func(format string, a ...any) {
		fmt.Fprintf(logw, "sim: %5.1fs "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}
	rep := &simReport{Seed: o.seed, Agents: o.agents, Timings: map[string]string{}}
	keepDir := o.dir != ""
	if o.dir == "" {
		d, err := os.MkdirTemp("", "vesper-sim-")
		if err != nil {
			return nil, err
		}
		o.dir = d
	}
	rep.Dir = o.dir
	data := filepath.Join(o.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}

	t0 := time.Now()
	if o.end == 0 {
		o.end = time.Now().Unix()
	}
	season, err := sim.Generate(sim.Config{Seed: o.seed, Agents: o.agents, Matches: o.matches, Days: o.days,
		End: o.end, Live: o.live})
	if err != nil {
		return nil, err
	}
	rep.Matches, rep.Events, rep.Plans = len(season.Matches), season.Count(), season.Plans()
	rep.Timings["generate"] = time.Since(t0).Round(time.Millisecond).String()
	say("generated %d matches, %d signed events", rep.Matches, rep.Events)

	fleet, err := sim.StartFleet(ctx, o.fleet, o.seed)
	if err != nil {
		return nil, err
	}
	defer fleet.Close()
	plan := sim.Plan(season, len(fleet.Members), o.seed)
	var history, live []sim.Delivery
	for _, d := range plan {
		if d.At == 0 {
			history = append(history, d)
		} else {
			live = append(live, d)
		}
	}
	rep.History, rep.Live = len(history), len(live)
	for _, d := range history {
		if err := deliver(ctx, fleet, d); err != nil {
			return nil, err
		}
	}
	rng := rand.New(rand.NewPCG(o.seed, 0xdead))
	if rep.Forged, err = injectForged(ctx, fleet, season, o.forged, rng); err != nil {
		return nil, err
	}
	say("published the history: %d deliveries over %d relays", len(history), len(fleet.Members))

	house := sim.AgentKey(o.seed, 1<<20)
	keyFile := filepath.Join(o.dir, "house.key")
	if err := os.WriteFile(keyFile, []byte(house.Hex()+"\n"), 0o600); err != nil {
		return nil, err
	}
	d := &simDaemon{bin: bin, log: filepath.Join(o.dir, "daemon.log"), args: []string{"daemon",
		"--data", data, "--relays", strings.Join(fleet.DaemonURLs(), ","), "--key", keyFile,
		"--tick", "1s", "--think", "50ms", "--max-games", "2",
		"--site-dir", filepath.Join(o.dir, "site-daemon"), "--site-every", "10s"}}
	if err := d.start(); err != nil {
		return nil, err
	}
	defer d.kill()
	fleet.RunFaults(ctx)
	say("daemon started; faults on")

	// The kills: the first during the first backfill, the others spread
	// over the live tail.
	span := time.Second
	if len(live) > 0 {
		span = max(span, time.Until(time.Unix(live[len(live)-1].At, 0)))
	}
	var killAt []time.Duration
	for i := range o.kills {
		if i == 0 {
			killAt = append(killAt, 1500*time.Millisecond+time.Duration(rng.Int64N(int64(time.Second))))
			continue
		}
		killAt = append(killAt, time.Duration(rng.Int64N(int64(span))))
	}
	slices.Sort(killAt)
	var killer sync.WaitGroup
	killCtx, stopKilling := context.WithCancel(ctx)
	defer stopKilling()
	pause := time.Duration(rng.Int64N(int64(2 * time.Second)))
	killer.Go(func() {
		start := time.Now()
		for _, at := range killAt {
			if !sleepUntil(killCtx, start.Add(at)) {
				return
			}
			d.kill()
			rep.Kills++
			sleepUntil(killCtx, time.Now().Add(pause))
			if err := d.start(); err != nil {
				say("restart failed: %v", err)
				return
			}
		}
	})

	t0 = time.Now()
	for _, dl := range live {
		if !sleepUntil(ctx, time.Unix(dl.At, 0)) {
			return nil, ctx.Err()
		}
		if err := deliver(ctx, fleet, dl); err != nil {
			return nil, err
		}
	}
	say("published the live tail: %d deliveries", len(live))
	killer.Wait()
	if err := fleet.Settle(); err != nil {
		return nil, err
	}
	if !d.running() {
		if err := d.start(); err != nil {
			return nil, err
		}
	}
	rep.Timings["live"] = time.Since(t0).Round(time.Millisecond).String()
	say("faults off after %d kills; waiting for the daemon to catch up", rep.Kills)

	t0 = time.Now()
	var last *simCheck
	for {
		if exited := d.exitedOnItsOwn(); exited != "" {
			rep.fail("the daemon exited on its own: %s (see %s)", exited, d.log)
			if err := d.start(); err != nil {
				return nil, err
			}
		}
		last = checkSim(ctx, data, fleet, house.PublicKey())
		if last.err == nil && len(last.problems) == 0 {
			break
		}
		if time.Since(t0) > o.settle {
			break
		}
		if !sleepUntil(ctx, time.Now().Add(2*time.Second)) {
			return nil, ctx.Err()
		}
	}
	rep.Timings["settle"] = time.Since(t0).Round(time.Millisecond).String()
	if last.err != nil {
		rep.fail("check: %v", last.err)
	}
	for _, p := range last.problems {
		rep.fail("%s", p)
	}
	rep.Checked, rep.Statuses, rep.FinalBy, rep.Ignored = last.checked, last.statuses, last.finalBy, last.ignored
	rep.Daemon = last.daemonKinds
	sort.Strings(last.daemonIgnored)
	rep.Notes = last.daemonIgnored
	for _, p := range last.repeated {
		rep.fail("the daemon published one duty twice: %s", p)
	}
	say("checked %d matches: %d problem(s)", last.checked, len(last.problems))

	if err := d.term(20 * time.Second); err != nil {
		rep.fail("%v", err)
	}
	rep.Starts = d.starts
	rep.Relays = fleet.Stats()
	rep.Site = checkSimSite(ctx, rep, data, filepath.Join(o.dir, "site"), house.PublicKey(), last.ref)
	rep.Timings["total"] = time.Since(began).Round(time.Millisecond).String()
	rep.OK = len(rep.Failures) == 0
	if rep.OK && !keepDir {
		os.RemoveAll(o.dir)
		rep.Dir = ""
	}
	return rep, nil
}

// deliver publishes one delivery to its relays.
func deliver(ctx context.Context, f *sim.Fleet, d sim.Delivery) error {
	times := 1
	if d.Twice {
		times = 2
	}
	for range times {
		for _, i := range d.Relays {
			if err := f.Publish(ctx, i, d.Event); err != nil {
				return err
			}
		}
	}
	return nil
}

// injectForged puts copies of real events with a broken id or signature
// on the relays, unchecked: a relay serving forgeries.
func injectForged(ctx context.Context, f *sim.Fleet, s *sim.Season, count int, rng *rand.Rand) (int, error) {
	evs := s.Events()
	n := 0
	for i := 0; i < len(evs) && n < count; i += 1 + rng.IntN(len(evs)/(count+1)+1) {
		forged := *evs[i]
		forged.Content += strings.Repeat(" ", 1+n)
		if n%2 == 0 {
			forged.ID = fmt.Sprintf("%064x", rng.Uint64()) // not the hash of the event
		} else {
			forged.ID = nostr.ComputeID(&forged) // the right hash, the old signature
		}
		if err := f.Inject(ctx, rng.IntN(len(f.Members)), &forged); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return true
	}
}

// simCheck is one comparison of the daemon's store with the relays.
type simCheck struct {
	err         error
	problems    []string
	repeated    []string
	checked     int
	ref         map[string]*match.State
	statuses    map[string]int
	finalBy     map[string]int
	ignored     int
	daemonKinds map[string]int
	// daemonIgnored lists the daemon's own events that the fold ignores:
	// not a failed check (an ignored event changes nothing), but a duty
	// done on a state that later changed.
	daemonIgnored []string
}

// checkSim compares the store with the offline fold of every event the
// relays hold. seen_at is when the simulation first stored each event on
// a relay, a lower bound of the daemon's: the two only differ for events
// stamped in the future, which are ignored either way.
func checkSim(ctx context.Context, data string, f *sim.Fleet, daemon string) *simCheck {
	c := &simCheck{statuses: map[string]int{}, finalBy: map[string]int{}, daemonKinds: map[string]int{}}
	st, err := store.OpenReadOnly(filepath.Join(data, "vesper.db"))
	if err != nil {
		c.err = err
		return c
	}
	defer st.Close()
	pending, err := st.OutboxPending(ctx)
	if err != nil {
		c.err = err
		return c
	}
	if len(pending) > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%d duties still unpublished in the daemon's outbox", len(pending)))
	}
	events, err := sim.FetchAll(ctx, f.DirectURLs(), time.Minute)
	if err != nil {
		c.err = err
		return c
	}
	c.ref = sim.Reference(events, f.SeenAt())
	sums, err := st.Summaries(ctx)
	if err != nil {
		c.err = err
		return c
	}
	stored := map[string]store.Summary{}
	for _, s := range sums {
		stored[s.Match] = s
	}
	var mismatched []string
	for id, s := range c.ref {
		c.checked++
		got, ok := stored[id]
		if !ok {
			mismatched = append(mismatched, fmt.Sprintf("match %s: no summary in the store", id))
			continue
		}
		// The stored summary's open/expired is as of when it was written.
		want := bytes.TrimSpace(match.MarshalLine(s.Summary(got.UpdatedAt)))
		if !bytes.Equal(bytes.TrimSpace(got.JSON), want) {
			mismatched = append(mismatched, fmt.Sprintf("match %s: %s\n  store: %s\n  fold:  %s",
				id, eventDiff(ctx, st, s), bytes.TrimSpace(got.JSON), want))
		}
		sum := s.Summary(time.Now().Unix())
		c.statuses[string(sum.Status)]++
		c.finalBy[string(s.FinalBy)]++
		c.ignored += len(s.Ignored)
		for _, ig := range s.Ignored {
			for _, ev := range s.Events {
				if ev.ID == ig.ID && ev.PubKey == daemon {
					c.daemonIgnored = append(c.daemonIgnored, fmt.Sprintf("%s %s of match %s: %s", kindName(ev.Kind), ev.ID, id, ig.Reason()))
				}
			}
		}
	}
	for id := range stored {
		if _, ok := c.ref[id]; !ok {
			mismatched = append(mismatched, fmt.Sprintf("match %s: in the store but no valid match on the relays", id))
		}
	}
	sort.Strings(mismatched)
	if len(mismatched) > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%d of %d matches differ from the offline fold", len(mismatched), len(c.ref)))
		c.problems = append(c.problems, mismatched[:min(len(mismatched), 5)]...)
	}
	missing := 0
	var example string
	duties := map[string][]string{}
	for _, ev := range events {
		has, err := st.HasEvent(ctx, ev.ID)
		if err != nil {
			c.err = err
			return c
		}
		if !has {
			missing++
			example = ev.ID
		}
		if ev.PubKey == daemon {
			c.daemonKinds[kindName(ev.Kind)]++
			k := dutyKey(ev)
			duties[k] = append(duties[k], ev.ID)
		}
	}
	if missing > 0 {
		c.problems = append(c.problems, fmt.Sprintf("%d events on the relays are not in the store (e.g. %s)", missing, example))
	}
	for k, ids := range duties {
		if len(ids) > 1 {
			c.repeated = append(c.repeated, fmt.Sprintf("%s: %s", k, strings.Join(ids, ", ")))
		}
	}
	sort.Strings(c.repeated)
	return c
}

// eventDiff says which events of a match only the relays or only the
// store hold.
func eventDiff(ctx context.Context, st *store.Store, s *match.State) string {
	stored, err := st.MatchEvents(ctx, s.Match)
	if err != nil {
		return err.Error()
	}
	inStore := map[string]bool{}
	for _, e := range stored {
		inStore[e.Event.ID] = true
	}
	var onlyRelays, onlyStore []string
	for _, ev := range s.Events {
		if !inStore[ev.ID] {
			onlyRelays = append(onlyRelays, fmt.Sprintf("%s %s@%d", kindName(ev.Kind), ev.ID[:12], ev.CreatedAt))
		}
		delete(inStore, ev.ID)
	}
	for id := range inStore {
		onlyStore = append(onlyStore, id[:12])
	}
	return fmt.Sprintf("relays hold %d events, the store %d; only on the relays: %v; only in the store: %v",
		len(s.Events), len(stored), onlyRelays, onlyStore)
}

// dutyKey names what a daemon event does, so that two events with one
// key are one duty published twice (signed again after a restart): one
// accept per match, one move per ply, one result or ruling per content.
// Two rulings with different contents are two duties: the state changed
// in between (see simCheck.daemonIgnored).
func dutyKey(ev *nostr.Event) string {
	g := strings.Join(nostr.MatchRefs(ev), ",")
	switch ev.Kind {
	case nostr.KindMove:
		ply, _ := nostr.Ply(ev)
		return fmt.Sprintf("%s %s ply %d", kindName(ev.Kind), g, ply)
	case nostr.KindResult, nostr.KindRuling:
		r, err := nostr.ParseResult(ev.Content)
		if err != nil {
			return fmt.Sprintf("%s %s %s", kindName(ev.Kind), g, ev.Content)
		}
		return fmt.Sprintf("%s %s %s/%d/%s", kindName(ev.Kind), g, r.Result, r.Plies, r.FinalHash)
	}
	return fmt.Sprintf("%s %s", kindName(ev.Kind), g)
}

func kindName(k int) string {
	switch k {
	case nostr.KindChallenge:
		return "challenge"
	case nostr.KindAccept:
		return "accept"
	case nostr.KindMove:
		return "move"
	case nostr.KindResult:
		return "result"
	case nostr.KindRequest:
		return "request"
	case nostr.KindRuling:
		return "ruling"
	}
	return fmt.Sprintf("kind %d", k)
}

var matchLink = regexp.MustCompile(`m/([0-9a-f]{64})\.html`)

// checkSimSite builds the site from the store and checks that every match
// has a page and a match.json that verifies to the fold's summary, and
// that some other page (or matches.json) links it.
func checkSimSite(ctx context.Context, rep *simReport, data, dir, daemon string, ref map[string]*match.State) string {
	st, err := store.Open(filepath.Join(data, "vesper.db"))
	if err != nil {
		rep.fail("site: %v", err)
		return "failed"
	}
	defer st.Close()
	now := time.Now().Unix()
	t0 := time.Now()
	if _, err := siteFromStore(ctx, st, dir, daemon, true, now); err != nil {
		rep.fail("site build: %v", err)
		return "failed"
	}
	rep.Timings["site"] = time.Since(t0).Round(time.Millisecond).String()
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		return "skipped: this build's site builder wrote no index.html (vesper site build is not wired in yet)"
	}
	// The site's directory is a symlink to the current build, and WalkDir
	// does not follow a symlink even at its root.
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		rep.fail("site: %v", err)
		return "failed"
	}
	linked := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		name := e.Name()
		if !strings.HasSuffix(name, ".html") && name != "matches.json" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		self := strings.TrimSuffix(name, ".html")
		for _, m := range matchLink.FindAllSubmatch(b, -1) {
			if string(m[1]) != self {
				linked[string(m[1])] = true
			}
		}
		if name == "matches.json" {
			for id := range ref {
				if bytes.Contains(b, []byte(id)) {
					linked[id] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		rep.fail("site: %v", err)
		return "failed"
	}
	bad := 0
	for id, s := range ref {
		problem := ""
		raw, err := os.ReadFile(filepath.Join(dir, "m", id+".json"))
		switch {
		case !linked[id]:
			problem = "no page links it"
		case err != nil:
			problem = err.Error()
		default:
			if _, err := os.Stat(filepath.Join(dir, "m", id+".html")); err != nil {
				problem = err.Error()
			} else if got, err := verifyMatchJSON(raw, now); err != nil {
				problem = "match.json: " + err.Error()
			} else if want := bytes.TrimSpace(match.MarshalLine(s.Summary(now))); !bytes.Equal(got, want) {
				problem = fmt.Sprintf("match.json verifies to\n  %s\nnot\n  %s", got, want)
			}
		}
		if problem != "" {
			bad++
			if bad <= 5 {
				rep.fail("site: match %s: %s", id, problem)
			}
		}
	}
	if bad > 0 {
		rep.fail("site: %d of %d matches have a problem", bad, len(ref))
		return "failed"
	}
	return fmt.Sprintf("ok: %d match pages, each linked, each match.json verifies", len(ref))
}

// verifyMatchJSON is `vesper verify` of one file at a given now.
func verifyMatchJSON(raw []byte, now int64) ([]byte, error) {
	f, err := match.ParseFile(raw)
	if err != nil {
		return nil, err
	}
	id := f.Match
	if id == "" {
		if id, err = match.FindChallenge(f.Events); err != nil {
			return nil, err
		}
	}
	s, err := match.Fold(id, f.Events, f.SeenAt)
	if err != nil {
		return nil, err
	}
	return bytes.TrimSpace(match.MarshalLine(s.Summary(now))), nil
}

// simDaemon is the daemon under test, as a child process that can be
// killed with SIGKILL and started again on the same data.
type simDaemon struct {
	bin, log string
	args     []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{}
	err    error
	killed bool
	starts int
}

func (d *simDaemon) start() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	logf, err := os.OpenFile(d.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "---- sim: start %d\n", d.starts+1)
	cmd := exec.Command(d.bin, d.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting the daemon: %w", err)
	}
	d.cmd, d.done, d.killed = cmd, make(chan struct{}), false
	d.starts++
	done := d.done
	go func() {
		err := cmd.Wait()
		logf.Close()
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
		close(done)
	}()
	return nil
}

func (d *simDaemon) running() bool {
	d.mu.Lock()
	done := d.done
	d.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// exitedOnItsOwn describes an exit nobody asked for, once.
func (d *simDaemon) exitedOnItsOwn() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done == nil || d.killed {
		return ""
	}
	select {
	case <-d.done:
		d.killed = true // reported
		if d.err == nil {
			return "status 0"
		}
		return d.err.Error()
	default:
		return ""
	}
}

func (d *simDaemon) signal(sig syscall.Signal) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd == nil {
		return nil
	}
	d.killed = true
	_ = d.cmd.Process.Signal(sig)
	return d.done
}

func (d *simDaemon) kill() {
	if done := d.signal(syscall.SIGKILL); done != nil {
		<-done
	}
}

// term stops the daemon as an operator would, and expects a clean exit.
func (d *simDaemon) term(timeout time.Duration) error {
	done := d.signal(syscall.SIGTERM)
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-time.After(timeout):
		d.kill()
		return errors.New("the daemon did not stop within " + timeout.String() + " of SIGTERM")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return fmt.Errorf("the daemon's exit after SIGTERM: %v", d.err)
	}
	return nil
}
