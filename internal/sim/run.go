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

	"vesper/internal/pause"
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
	// Stall is how long the daemon may go without progress while it
	// catches up after the faults end, before the run stops waiting and
	// reports what still differs [DefaultStall]. Progress, not a total
	// budget: a loaded host slows the daemon down without failing the run.
	Stall time.Duration
	// StopWait is how long the daemon may take to exit on SIGTERM
	// [DefaultStopWait].
	StopWait time.Duration
	Dir      string // kept when set; else a temporary directory, removed when every check passes
	Fleet    []RelaySpec
	// BuildSite builds the static site of the store st into dir, as the
	// daemon does (house is the daemon's pubkey, listing every account):
	// the site is vesper's, the simulation only checks what it links.
	BuildSite func(ctx context.Context, st *store.Store, dir, house string, now int64) error
}

// Run runs one simulation; bin is the vesper binary the daemon runs
// from, and progress lines go to logw. An error means the run could not
// be carried out; failed checks are in the report.
//
// Run has no wall-clock budget of its own: the live tail takes o.Live, and
// the catching up after it ends when the daemon agrees with the relays or
// makes no progress for o.Stall, however slow the host.
func Run(ctx context.Context, o Options, bin string, logw io.Writer) (*Report, error) {
	r := &run{o: o, bin: bin, logw: logw, began: time.Now(),
		rep: &Report{Seed: o.Seed, Agents: o.Agents, Timings: map[string]string{}}}
	if err := r.prepare(); err != nil {
		return nil, err
	}
	season, err := r.generate()
	if err != nil {
		return nil, err
	}
	r.fleet, err = StartFleet(ctx, o.Fleet, o.Seed)
	if err != nil {
		return nil, err
	}
	defer r.fleet.Close()
	live, err := r.publishHistory(ctx, season)
	if err != nil {
		return nil, err
	}
	if err := r.startDaemon(); err != nil {
		return nil, err
	}
	defer r.d.kill()
	r.fleet.RunFaults(ctx)
	r.say("daemon started; faults on")
	if err := r.liveTail(ctx, live); err != nil {
		return nil, err
	}
	last, err := r.catchUp(ctx)
	if err != nil {
		return nil, err
	}
	r.finish(ctx, last)
	return r.rep, nil
}

// run is one simulation's state as it goes through its phases.
type run struct {
	o     Options
	bin   string
	logw  io.Writer
	began time.Time
	rep   *Report
	data  string // the daemon's data directory
	keep  bool   // o.Dir was given: never removed
	fleet *Fleet
	rng   *rand.Rand // forgeries and kills, in that order
	house nostr.SecretKey
	d     *daemonProc
}

func (r *run) say(format string, a ...any) {
	fmt.Fprintf(r.logw, "sim: %5.1fs "+format+"\n", append([]any{time.Since(r.began).Seconds()}, a...)...)
}

// prepare makes the run's directory and fills in the defaults.
func (r *run) prepare() error {
	r.keep = r.o.Dir != ""
	if r.o.Dir == "" {
		d, err := os.MkdirTemp("", "vesper-sim-")
		if err != nil {
			return err
		}
		r.o.Dir = d
	}
	r.rep.Dir = r.o.Dir
	r.data = filepath.Join(r.o.Dir, "data")
	if r.o.End == 0 {
		r.o.End = time.Now().Unix()
	}
	if r.o.Stall <= 0 {
		r.o.Stall = DefaultStall
	}
	if r.o.StopWait <= 0 {
		r.o.StopWait = DefaultStopWait
	}
	r.rng = rand.New(rand.NewPCG(r.o.Seed, 0xdead))
	r.house = AgentKey(r.o.Seed, 1<<20)
	return os.MkdirAll(r.data, 0o755)
}

// The defaults of Options.Stall and Options.StopWait.
const (
	DefaultStall    = 5 * time.Minute
	DefaultStopWait = 20 * time.Second
)

func (r *run) generate() (*Season, error) {
	t0 := time.Now()
	season, err := Generate(Config{Seed: r.o.Seed, Agents: r.o.Agents, Matches: r.o.Matches, Days: r.o.Days,
		End: r.o.End, Live: r.o.Live})
	if err != nil {
		return nil, err
	}
	r.rep.Matches, r.rep.Events, r.rep.Plans = len(season.Matches), season.Count(), season.Plans()
	r.rep.Timings["generate"] = time.Since(t0).Round(time.Millisecond).String()
	r.say("generated %d matches, %d signed events", r.rep.Matches, r.rep.Events)
	return season, nil
}

// publishHistory stores the season's past and the forgeries on the relays
// before the daemon starts, and returns the live deliveries.
func (r *run) publishHistory(ctx context.Context, season *Season) ([]Delivery, error) {
	var history, live []Delivery
	for _, d := range Plan(season, len(r.fleet.Members), r.o.Seed) {
		if d.At == 0 {
			history = append(history, d)
		} else {
			live = append(live, d)
		}
	}
	r.rep.History, r.rep.Live = len(history), len(live)
	for _, d := range history {
		if err := deliver(ctx, r.fleet, d); err != nil {
			return nil, err
		}
	}
	var err error
	if r.rep.Forged, err = injectForged(ctx, r.fleet, season, r.o.Forged, r.rng); err != nil {
		return nil, err
	}
	r.say("published the history: %d deliveries over %d relays", len(history), len(r.fleet.Members))
	return live, nil
}

func (r *run) startDaemon() error {
	keyFile := filepath.Join(r.o.Dir, "house.key")
	if err := os.WriteFile(keyFile, []byte(r.house.Hex()+"\n"), 0o600); err != nil {
		return err
	}
	r.d = &daemonProc{bin: r.bin, log: filepath.Join(r.o.Dir, "daemon.log"), args: []string{"daemon",
		"--data", r.data, "--relays", strings.Join(r.fleet.DaemonURLs(), ","), "--key", keyFile,
		"--tick", "1s", "--think", "50ms", "--max-games", "2",
		"--site-dir", filepath.Join(r.o.Dir, "site-daemon"), "--site-every", "10s"}}
	return r.d.start()
}

// killTimes are when, after the daemon's start, it is killed: the first
// during the first backfill, the others spread over the live tail.
func (r *run) killTimes(live []Delivery) []time.Duration {
	span := time.Second
	if len(live) > 0 {
		span = max(span, time.Until(time.Unix(live[len(live)-1].At, 0)))
	}
	var killAt []time.Duration
	for i := range r.o.Kills {
		if i == 0 {
			killAt = append(killAt, 1500*time.Millisecond+time.Duration(r.rng.Int64N(int64(time.Second))))
			continue
		}
		killAt = append(killAt, time.Duration(r.rng.Int64N(int64(span))))
	}
	slices.Sort(killAt)
	return killAt
}

// killer kills the daemon at each of killAt and starts it again after
// down; it returns when done or when ctx ends.
func (r *run) killer(ctx context.Context, killAt []time.Duration, down time.Duration) {
	start := time.Now()
	for _, at := range killAt {
		if !pause.Until(ctx, start.Add(at)) {
			return
		}
		r.d.kill()
		r.rep.Kills++
		pause.For(ctx, down)
		if err := r.d.start(); err != nil {
			r.say("restart failed: %v", err)
			return
		}
	}
}

// liveTail publishes the live deliveries at their times while the daemon
// is killed and restarted, then ends the faults.
func (r *run) liveTail(ctx context.Context, live []Delivery) error {
	killAt := r.killTimes(live)
	down := time.Duration(r.rng.Int64N(int64(2 * time.Second)))
	var killer sync.WaitGroup
	killCtx, stopKilling := context.WithCancel(ctx)
	defer stopKilling()
	killer.Go(func() { r.killer(killCtx, killAt, down) })
	t0 := time.Now()
	for _, dl := range live {
		if !pause.Until(ctx, time.Unix(dl.At, 0)) {
			return ctx.Err()
		}
		if err := deliver(ctx, r.fleet, dl); err != nil {
			return err
		}
	}
	r.say("published the live tail: %d deliveries", len(live))
	killer.Wait()
	if !r.fleet.AwaitFaults(ctx, r.o.Stall) {
		r.say("not every fault came round within %s", r.o.Stall)
	}
	if err := r.fleet.Settle(); err != nil {
		return err
	}
	if !r.d.running() {
		if err := r.d.start(); err != nil {
			return err
		}
	}
	r.rep.Timings["live"] = time.Since(t0).Round(time.Millisecond).String()
	r.say("faults off after %d kills; waiting for the daemon to catch up", r.rep.Kills)
	return nil
}

// catchUp compares the daemon's store with the relays until they agree,
// or until the daemon has made no progress (see storeCheck.progressed) for
// o.Stall: a slow host makes the run longer, not failed.
func (r *run) catchUp(ctx context.Context) (*storeCheck, error) {
	t0 := time.Now()
	var last *storeCheck
	lastProgress := t0
	for {
		if exited := r.d.exitedOnItsOwn(); exited != "" {
			r.rep.fail("the daemon exited on its own: %s (see %s)", exited, r.d.log)
			if err := r.d.start(); err != nil {
				return nil, err
			}
		}
		c := checkStore(ctx, r.data, r.fleet, r.house.PublicKey(), r.o.Stall)
		if c.progressed(last) {
			lastProgress = time.Now()
		}
		last = c
		if last.err == nil && len(last.problems) == 0 {
			break
		}
		if time.Since(lastProgress) > r.o.Stall {
			r.say("no progress for %s: giving up", r.o.Stall)
			break
		}
		if !pause.For(ctx, 2*time.Second) {
			return nil, ctx.Err()
		}
	}
	r.rep.Timings["settle"] = time.Since(t0).Round(time.Millisecond).String()
	return last, nil
}

// finish records the last check, stops the daemon and checks the site.
func (r *run) finish(ctx context.Context, last *storeCheck) {
	rep := r.rep
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
	r.say("checked %d matches: %d problem(s)", last.checked, len(last.problems))
	if err := r.d.term(r.o.StopWait); err != nil {
		rep.fail("%v", err)
	}
	rep.Starts = r.d.starts
	rep.Relays = r.fleet.Stats()
	rep.Site = checkSite(ctx, r.o, rep, r.data, filepath.Join(r.o.Dir, "site"), r.house.PublicKey(), last.ref)
	rep.Timings["total"] = time.Since(r.began).Round(time.Millisecond).String()
	rep.OK = len(rep.Failures) == 0
	if rep.OK && !r.keep {
		os.RemoveAll(r.o.Dir)
		rep.Dir = ""
	}
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
