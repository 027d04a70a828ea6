package sim

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"vesper/nostr"
	"vesper/store"
)

type Options struct {
	Agents, Matches, Days int
	Seed                  uint64
	End                   int64 // 0: now
	Live                  time.Duration
	Kills                 int
	Forged                int // events with a bad id or signature put on the relays
	Settle                time.Duration
	Dir                   string // kept when set; else a temporary directory, removed when every check passes
	Fleet                 []RelaySpec
	// BuildSite builds the static site of the store st into dir, as the
	// daemon does (house is the daemon's pubkey, listing every account):
	// the site is vesper's, the simulation only checks what it links.
	BuildSite func(ctx context.Context, st *store.Store, dir, house string, now int64) error
}

// Report is what a run did and found (`vesper sim --json` prints it).
type Report struct {
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
	Relays   []MemberStats     `json:"relays"`
	Checked  int               `json:"matches_checked"`
	Site     string            `json:"site"`
	Notes    []string          `json:"daemon_events_ignored"`
	Timings  map[string]string `json:"timings"`
}

func (r *Report) fail(format string, a ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, a...))
}

func (r *Report) Print(w io.Writer) {
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

// Run runs one simulation; bin is the vesper binary the daemon runs
// from, and progress lines go to logw. An error means the run could not
// be carried out; failed checks are in the report.
func Run(ctx context.Context, o Options, bin string, logw io.Writer) (*Report, error) {
	began := time.Now()
	say := func(format string, a ...any) {
		fmt.Fprintf(logw, "sim: %5.1fs "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}
	rep := &Report{Seed: o.Seed, Agents: o.Agents, Timings: map[string]string{}}
	keepDir := o.Dir != ""
	if o.Dir == "" {
		d, err := os.MkdirTemp("", "vesper-sim-")
		if err != nil {
			return nil, err
		}
		o.Dir = d
	}
	rep.Dir = o.Dir
	data := filepath.Join(o.Dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return nil, err
	}

	t0 := time.Now()
	if o.End == 0 {
		o.End = time.Now().Unix()
	}
	season, err := Generate(Config{Seed: o.Seed, Agents: o.Agents, Matches: o.Matches, Days: o.Days,
		End: o.End, Live: o.Live})
	if err != nil {
		return nil, err
	}
	rep.Matches, rep.Events, rep.Plans = len(season.Matches), season.Count(), season.Plans()
	rep.Timings["generate"] = time.Since(t0).Round(time.Millisecond).String()
	say("generated %d matches, %d signed events", rep.Matches, rep.Events)

	fleet, err := StartFleet(ctx, o.Fleet, o.Seed)
	if err != nil {
		return nil, err
	}
	defer fleet.Close()
	plan := Plan(season, len(fleet.Members), o.Seed)
	var history, live []Delivery
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
	rng := rand.New(rand.NewPCG(o.Seed, 0xdead))
	if rep.Forged, err = injectForged(ctx, fleet, season, o.Forged, rng); err != nil {
		return nil, err
	}
	say("published the history: %d deliveries over %d relays", len(history), len(fleet.Members))

	house := AgentKey(o.Seed, 1<<20)
	keyFile := filepath.Join(o.Dir, "house.key")
	if err := os.WriteFile(keyFile, []byte(house.Hex()+"\n"), 0o600); err != nil {
		return nil, err
	}
	d := &daemonProc{bin: bin, log: filepath.Join(o.Dir, "daemon.log"), args: []string{"daemon",
		"--data", data, "--relays", strings.Join(fleet.DaemonURLs(), ","), "--key", keyFile,
		"--tick", "1s", "--think", "50ms", "--max-games", "2",
		"--site-dir", filepath.Join(o.Dir, "site-daemon"), "--site-every", "10s"}}
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
	for i := range o.Kills {
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
	var last *storeCheck
	for {
		if exited := d.exitedOnItsOwn(); exited != "" {
			rep.fail("the daemon exited on its own: %s (see %s)", exited, d.log)
			if err := d.start(); err != nil {
				return nil, err
			}
		}
		last = checkStore(ctx, data, fleet, house.PublicKey())
		if last.err == nil && len(last.problems) == 0 {
			break
		}
		if time.Since(t0) > o.Settle {
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
	rep.Site = checkSite(ctx, o, rep, data, filepath.Join(o.Dir, "site"), house.PublicKey(), last.ref)
	rep.Timings["total"] = time.Since(began).Round(time.Millisecond).String()
	rep.OK = len(rep.Failures) == 0
	if rep.OK && !keepDir {
		os.RemoveAll(o.Dir)
		rep.Dir = ""
	}
	return rep, nil
}

// deliver publishes one delivery to its relays.
func deliver(ctx context.Context, f *Fleet, d Delivery) error {
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
func injectForged(ctx context.Context, f *Fleet, s *Season, count int, rng *rand.Rand) (int, error) {
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
