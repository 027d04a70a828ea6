package play

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// Runner plays the key's games.
type Runner struct {
	cfg     Config
	me      string
	games   string // the journals' directory
	ctx     context.Context
	stop    context.CancelFunc
	mu      sync.Mutex
	workers map[string]*worker
	active  map[string]bool // games in progress or reserved, for MaxGames
	series  *series
	posted  map[string]bool // the key's own open challenges still open
	// waiting are challenges declined only because MaxGames were being
	// played: weighed again when a game ends.
	waiting map[string]seat.StreamEvent
	wg      sync.WaitGroup
	ready   bool
	// budgetSaid: the budget line is printed once (budget.go).
	budgetSaid bool
}

// New checks cfg and builds a runner.
func New(cfg Config) (*Runner, error) {
	if cfg.Seat == nil || cfg.Seat.Key.IsZero() {
		return nil, errors.New("play: the runner needs a key")
	}
	if cfg.NewMover == nil {
		return nil, errors.New("play: no engine or agent")
	}
	if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	switch cfg.Fallback {
	case "":
		cfg.Fallback = FallbackRandom
	case FallbackRandom, FallbackResign, FallbackNone:
	default:
		return nil, fmt.Errorf("play: fallback must be random, resign or none, not %q", cfg.Fallback)
	}
	if cfg.Policy.MaxGames <= 0 {
		cfg.Policy.MaxGames = 5
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = time.Second
	}
	if cfg.OpenGame == "" {
		cfg.OpenGame = nostr.GameChess
	}
	if err := checkGames(cfg); err != nil {
		return nil, err
	}
	r := &Runner{cfg: cfg, me: cfg.Seat.Me(), games: filepath.Join(cfg.Dir, "games"),
		workers: map[string]*worker{}, active: map[string]bool{}, posted: map[string]bool{}, waiting: map[string]seat.StreamEvent{}}
	// Every move the seat signs is journaled whole before it is sent.
	prev := cfg.Seat.BeforePublish
	cfg.Seat.BeforePublish = func(ev *nostr.Event) error {
		if prev != nil {
			if err := prev(ev); err != nil {
				return err
			}
		}
		return r.journalSigned(ev)
	}
	if cfg.Series != nil {
		s, err := loadSeries(cfg.Dir, *cfg.Series)
		if err != nil {
			return nil, err
		}
		r.series = s
	}
	return r, nil
}

func (r *Runner) now() int64 {
	if r.cfg.Seat.Now != nil {
		return r.cfg.Seat.Now().Unix()
	}
	return time.Now().Unix()
}

func (r *Runner) out(l Line) {
	if r.cfg.Out == nil {
		return
	}
	l.At = r.now()
	r.cfg.Out(l)
}

// Run plays until ctx is done, or, with a series, until the series is
// over (its line is the last printed). Unfinished games of the journals are
// followed again, and a move journaled but perhaps not published is sent
// again rather than decided anew.
func (r *Runner) Run(ctx context.Context) error {
	follow, err := Unfinished(r.games)
	if err != nil {
		return err
	}
	if r.series != nil {
		follow = append(follow, r.series.unfinished()...)
		if r.series.done() {
			r.seriesLine()
			return nil
		}
	}
	ctx, r.stop = context.WithCancel(ctx)
	defer r.stop()
	r.ctx = ctx
	err = r.cfg.Seat.Events(ctx, seat.StreamOptions{Open: r.cfg.Policy.Open, Follow: follow, Ready: r.onReady}, r.dispatch)
	r.wg.Wait()
	r.closeMovers()
	if r.series != nil && r.series.done() {
		return nil
	}
	return err
}

func (r *Runner) closeMovers() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.workers {
		if w.mover != nil {
			_ = w.mover.Close()
		}
	}
}

// onReady runs once every relay has delivered what it holds: only then may
// the runner post challenges, after it has seen those it posted before a
// crash.
func (r *Runner) onReady() {
	if r.series != nil {
		// A slot still marked posting found no challenge on the relays:
		// the crash came before it was signed, so it is posted now.
		r.series.unmarkOrphans()
	}
	r.mu.Lock()
	r.ready = true
	r.mu.Unlock()
	r.wg.Go(r.challengeList)
	r.matchmake()
}

// dispatch hands a stream event to its match's worker, starting one; a
// challenge is first weighed by the policy (and the series), which
// reserves a slot for it.
func (r *Runner) dispatch(ev seat.StreamEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.workers[ev.Match]
	if w == nil {
		switch ev.Type {
		case seat.EventInvitation, seat.EventOpen:
			if !r.takes(ev) {
				return
			}
			r.active[ev.Match] = true
		case seat.EventFinal, seat.EventExpired:
		default:
			r.adopt(ev)
		}
		w = &worker{r: r, id: ev.Match, kick: make(chan struct{}, 1)}
		r.workers[ev.Match] = w
		r.wg.Go(w.run)
	}
	w.mu.Lock()
	w.latest = &ev
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// takes decides on a challenge: the series' own invitation, or the policy.
func (r *Runner) takes(ev seat.StreamEvent) bool {
	if r.series != nil && r.series.has(ev.Match) {
		// Assigned to its slot before a crash kept the accept from going out.
		return true
	}
	if r.series != nil && ev.Type == seat.EventInvitation && ev.From == r.series.cfg.Opponent && ev.Game == r.series.cfg.Game {
		if i, ok := r.series.nextSecond(); ok {
			_ = r.series.assign(i, ev.Match)
			return true
		}
	}
	delete(r.waiting, ev.Match)
	if why, over := r.overBudget(); over {
		r.out(Line{Type: "decline", Match: ev.Match, Note: why})
		return false
	}
	ok, why := r.cfg.Policy.Accepts(ev, len(r.active), r.now())
	if !ok {
		if ok2, _ := r.cfg.Policy.Accepts(ev, 0, r.now()); ok2 {
			r.waiting[ev.Match] = ev
			why += ": waiting for a game to end"
		}
		r.out(Line{Type: "decline", Match: ev.Match, Note: why})
	}
	return ok
}

// adopt counts a game of the key found on the relays: one in progress or
// posted towards MaxGames, an open challenge of its own towards PostOpen,
// and an invitation of the series opponent that a crash kept out of the
// series file into the slot it was posted for.
func (r *Runner) adopt(ev seat.StreamEvent) {
	stt := ev.Status
	if stt == nil || stt.MyRole == "" {
		return
	}
	if stt.Status != match.StatusOver {
		r.active[ev.Match] = true
	}
	if ev.Type == seat.EventPosted && stt.Invitee == nil {
		r.posted[ev.Match] = true
	}
	if r.series != nil && stt.MyRole == match.First && stt.Invitee != nil && *stt.Invitee == r.series.cfg.Opponent {
		if i, ok := r.series.orphan(ev.Match); ok {
			_ = r.series.assign(i, ev.Match)
			delete(r.active, "slot:"+fmt.Sprint(i))
		}
	}
}

// release frees a game's slot and looks for the next challenge to post.
func (r *Runner) release(id string, done bool) {
	r.mu.Lock()
	delete(r.active, id)
	delete(r.posted, id)
	if done {
		delete(r.workers, id)
	}
	again := make([]seat.StreamEvent, 0, len(r.waiting))
	for _, ev := range r.waiting {
		again = append(again, ev)
	}
	r.mu.Unlock()
	// The oldest waiting challenge first, as the house does.
	sort.Slice(again, func(i, j int) bool {
		a, b := again[i].Status, again[j].Status
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return again[i].Match < again[j].Match
	})
	for _, ev := range again {
		r.dispatch(ev)
	}
	r.matchmake()
}

// finished records a final game in the series and ends the run when the
// series is complete.
func (r *Runner) finished(id, outcome string) {
	if r.series == nil || !r.series.has(id) {
		return
	}
	r.series.result(id, outcome)
	r.seriesLine()
	if r.series.done() {
		r.stop()
	}
}
