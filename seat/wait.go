package seat

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr/relay"
)

// WaitOptions tune Wait.
type WaitOptions struct {
	// Timeout is how long to wait at most [5m].
	Timeout time.Duration
	// Progress, when set, is called while Wait waits: on every new event
	// or relay change, and at least every ProgressEvery.
	Progress func(Progress)
	// ProgressEvery [5s].
	ProgressEvery time.Duration
	// Seen lists offers and arbitration requests (their event ids) the
	// caller already knows of and has chosen to leave: they do not wake
	// Wait. Any other pending offer or request by the other player wakes
	// one Wait of the key (it is remembered, beside the lock), even one
	// that arrived before Wait started, so an agent that only waits cannot
	// miss it and is not woken by it again. An offer stops being pending
	// by itself once the position it names has moved on.
	Seen []string
}

// Progress is what Wait has seen so far.
type Progress struct {
	Elapsed   time.Duration `json:"elapsed"`
	Connected int           `json:"connected"` // relays whose subscription is live
	Events    int           `json:"events"`    // distinct events of the match received
}

// Woke is Wait's answer: why it returned and the match then.
type Woke struct {
	Reason string  `json:"reason"`
	Status *Status `json:"status"`
	// Revealed lists the reveal events (kind 4427) published on waking
	// final: the key's committed reasoning, once the result is final
	// (PROTOCOL.md section 8.2).
	Revealed []string `json:"revealed,omitempty"`
}

// Wait follows the match on one live subscription per relay (reopened after
// a drop, so a relay restart costs nothing but the reconnect) and returns
// as soon as it is the seat's turn, the game is over and the seat's key
// must sign, the result is final, the other player's offer or arbitration
// request is pending (unless listed in WaitOptions.Seen), the challenge
// expires, or the timeout passes. Events get their receipt time as seen_at.
func (s *Seat) Wait(ctx context.Context, ref string, opts WaitOptions) (*Woke, error) {
	if err := s.needKey(); err != nil {
		return nil, err
	}
	id, hints, err := matchRef(ref)
	if err != nil {
		return nil, inputf("MATCH: %v", err)
	}
	if len(s.Relays) == 0 {
		return nil, &RelayError{What: "wait for match " + id}
	}
	relays := withRelays(s.Relays, hints)
	if opts.Timeout <= 0 {
		opts.Timeout = 5 * time.Minute
	}
	if opts.ProgressEvery <= 0 {
		opts.ProgressEvery = 5 * time.Second
	}
	start := s.now()
	deadline := time.NewTimer(opts.Timeout)
	defer deadline.Stop()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()

	w := &waiter{events: map[string]relay.Received{}, seen: map[string]int64{}, heldBy: map[string][]string{},
		up: map[string]bool{}, everUp: map[string]bool{}, failed: map[string]string{}, kick: make(chan struct{}, 1)}
	go relay.Watch(wctx, relays, relay.MatchFilters(id), relay.WatchOptions{
		Timeout:  s.timeout(),
		Key:      s.Key,
		OnStatus: w.relayStatus,
		Guard:    s.guard(relays),
	}, func(r relay.Received) { w.received(r, s.now().Unix()) })
	return s.waitLoop(ctx, w, id, relays, opts, start, deadline.C)
}

// waitLoop looks at the match anew on each event, relay change or clock
// change that matters, until something wakes the key or deadline passes.
func (s *Seat) waitLoop(ctx context.Context, w *waiter, id string, relays []string, opts WaitOptions, start time.Time, deadline <-chan time.Time) (*Woke, error) {
	tick := time.NewTicker(opts.ProgressEvery)
	defer tick.Stop()
	// again fires when the clock alone changes what the key can do (the
	// other player's clock runs out, a stamp stops being ahead, the
	// challenge expires), to look at the match anew.
	again := time.NewTimer(time.Hour)
	again.Stop()
	defer again.Stop()
	base := s.skipSet(id, opts.Seen)
	var last *Snapshot
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-deadline:
			return s.waitTimedOut(w, id, relays, last)
		case <-tick.C:
			w.report(opts, start, s.now())
			continue
		case <-w.kick:
		case <-again.C:
		}
		snap, allReported := w.snapshot(id, relays)
		w.report(opts, start, s.now())
		if snap == nil {
			if allReported {
				// Every relay answered (or failed) and none has the challenge.
				if err := w.noAnswer(id, relays); err != nil {
					return nil, err
				}
			}
			continue
		}
		last = snap
		woke, after := s.wakeOn(ctx, id, snap, base)
		if woke != nil {
			return woke, nil
		}
		again.Stop()
		// A time already past would spin: only a new event can help then.
		if after > 0 {
			again.Reset(after)
		}
	}
}

// wakeOn is what snap wakes the key for, or nil and how long until the
// clock alone could change that (0: only a new event can).
func (s *Seat) wakeOn(ctx context.Context, id string, snap *Snapshot, base map[string]bool) (*Woke, time.Duration) {
	now := s.now()
	stt := snap.Status(s.Me(), now.Unix())
	reason, at := s.wakeReason(snap.State, stt, base, now)
	if reason != "" {
		s.remember(id, wokeFor(reason, stt, s.Me())...)
		return &Woke{Reason: reason, Status: stt, Revealed: s.revealOnFinal(ctx, id, reason)}, 0
	}
	if at.After(now) {
		return nil, at.Sub(now)
	}
	return nil, 0
}

// waitTimedOut answers WakeTimeout with the last state seen, or says no
// relay had the match.
func (s *Seat) waitTimedOut(w *waiter, id string, relays []string, last *Snapshot) (*Woke, error) {
	if last == nil {
		return nil, w.noAnswer(id, relays)
	}
	now := s.now().Unix()
	last.At = now
	return &Woke{Reason: WakeTimeout, Status: last.Status(s.Me(), now)}, nil
}

// skipSet is the offers and requests that do not wake the key: those the
// caller listed as seen and those it was already woken for.
func (s *Seat) skipSet(id string, seen []string) map[string]bool {
	base := map[string]bool{}
	for _, ev := range slices.Concat(seen, s.woken(id)) {
		base[ev] = true
	}
	return base
}

// Look reads the match once and answers what Wait would wake for now, or
// WakeTimeout when Wait would wait: a look that never blocks (`vesper wait
// --timeout 0`).
func (s *Seat) Look(ctx context.Context, ref string, seen []string) (*Woke, error) {
	if err := s.needKey(); err != nil {
		return nil, err
	}
	snap, err := s.Read(ctx, ref)
	if err != nil {
		return nil, err
	}
	id := snap.State.Match
	base := s.skipSet(id, seen)
	now := s.now()
	stt := snap.Status(s.Me(), now.Unix())
	reason, _ := s.wakeReason(snap.State, stt, base, now)
	if reason == "" {
		reason = WakeTimeout
	}
	s.remember(id, wokeFor(reason, stt, s.Me())...)
	return &Woke{Reason: reason, Status: stt, Revealed: s.revealOnFinal(ctx, id, reason)}, nil
}

type waiter struct {
	mu     sync.Mutex
	events map[string]relay.Received
	seen   map[string]int64
	heldBy map[string][]string
	up     map[string]bool
	everUp map[string]bool // a relay that went down keeps its events here
	failed map[string]string
	kick   chan struct{}
}

// relayStatus records a relay's subscription going up or down.
func (w *waiter) relayStatus(url string, up bool, err error) {
	w.mu.Lock()
	if up {
		w.up[url], w.everUp[url] = true, true
		delete(w.failed, url)
	} else {
		delete(w.up, url)
		w.failed[url] = shortErr(err, url)
	}
	w.mu.Unlock()
	w.signal()
}

// received records an event of the match, first seen at at, and which
// relays hold it.
func (w *waiter) received(r relay.Received, at int64) {
	w.mu.Lock()
	if _, ok := w.events[r.Event.ID]; !ok {
		w.events[r.Event.ID], w.seen[r.Event.ID] = r, at
	}
	if hb := w.heldBy[r.Event.ID]; !slices.Contains(hb, r.Relay) {
		w.heldBy[r.Event.ID] = append(hb, r.Relay)
	}
	w.mu.Unlock()
	w.signal()
}

// report calls the Progress callback, if any.
func (w *waiter) report(opts WaitOptions, start, now time.Time) {
	if opts.Progress != nil {
		opts.Progress(w.progress(start, now))
	}
}

func (w *waiter) signal() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

func (w *waiter) progress(start, now time.Time) Progress {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Progress{Elapsed: now.Sub(start).Round(time.Millisecond), Connected: len(w.up), Events: len(w.events)}
}

// snapshot folds what has arrived, once at least one relay's stored events
// are all in. It returns nil while that is not so, or while no relay has the
// challenge; allReported says every relay has been heard from.
func (w *waiter) snapshot(id string, relays []string) (snap *Snapshot, allReported bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	reported := len(w.failed)
	for url := range w.everUp {
		if _, down := w.failed[url]; !down {
			reported++
		}
	}
	allReported = reported >= len(relays)
	if len(w.everUp) == 0 {
		return nil, allReported
	}
	snap = &Snapshot{SeenAt: make(map[string]int64, len(w.seen)), Failed: map[string]string{}, HeldBy: map[string][]string{}}
	for k, v := range w.heldBy {
		snap.HeldBy[k] = slices.Clone(v)
	}
	for k, v := range w.seen {
		snap.SeenAt[k] = v
	}
	for k, v := range w.failed {
		snap.Failed[k] = v
	}
	for _, raw := range relays {
		url := gn.NormalizeURL(raw)
		if _, ok := snap.Failed[url]; !ok && !w.everUp[url] {
			snap.Failed[url] = "no answer yet"
		}
	}
	for url := range w.up {
		snap.Answered = append(snap.Answered, url)
	}
	sort.Strings(snap.Answered)
	for _, r := range w.events {
		snap.Events = append(snap.Events, r)
	}
	sortReceived(snap.Events)
	if err := snap.fold(id); err != nil {
		return nil, allReported
	}
	return snap, allReported
}

func (w *waiter) noAnswer(id string, relays []string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	failed := map[string]string{}
	for k, v := range w.failed {
		failed[k] = v
	}
	for _, raw := range relays {
		url := gn.NormalizeURL(raw)
		if _, ok := failed[url]; !ok && !w.up[url] {
			failed[url] = "no answer"
		}
	}
	if len(w.everUp) == 0 {
		return &RelayError{What: "wait for match " + id, Failed: failed}
	}
	var searched []string
	for url := range w.everUp {
		searched = append(searched, url)
	}
	sort.Strings(searched)
	return &NotFoundError{Match: id, Why: "no challenge event with id " + id, Failed: failed, Searched: searched}
}
