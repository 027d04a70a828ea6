package play

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"vesper/internal/pause"
	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// Fallbacks, taken when every attempt of a decision was refused.
const (
	FallbackRandom = "random" // a random legal move, flagged in the record
	FallbackResign = "resign"
	FallbackNone   = "none" // do nothing: the clock decides
)

// Config is a runner's setup.
type Config struct {
	Seat *seat.Seat
	// Dir holds games/MATCH.jsonl (journal and records), games/MATCH.pgn
	// and the series' file (SeriesFile).
	Dir string
	// NewMover makes the decider of one game.
	NewMover func(game string) Mover
	Policy   Policy
	Series   *SeriesConfig
	// PostOpen keeps that many open challenges of the key posted (game
	// OpenGame) while fewer than MaxGames are in progress.
	PostOpen int
	OpenGame string
	// Challenge lists players (hex pubkeys) to invite once each, to a game
	// of OpenGame; challenged.jsonl remembers who was, across restarts.
	Challenge []string
	// Retries is how often a refused answer is asked again [3].
	Retries  int
	Fallback string
	// Out receives progress lines (what the CLI prints); nil: none.
	Out func(Line)
	// Rand picks the random fallback move [a random source].
	Rand *rand.Rand
	// Backoff is the first wait before an action that failed on the relays
	// is tried again [1s].
	Backoff time.Duration
	// PlyCap ends a game at that many plies by an agreed result (plycap.go);
	// 0: no cap.
	PlyCap int
	// Budget, when set, says why no new game may be taken ("" while one
	// may): the run's spending reached --max-cost-usd (budget.go).
	Budget func() string
}

// SeriesConfig is a series of Games games against Opponent, sides swapped
// each game: the runner invites the opponent for its White (first) games
// and takes the opponent's invitations for the others. NoSwap keeps the
// first game's side throughout: the daemon's house never challenges, so
// against it the runner is first in every game.
type SeriesConfig struct {
	Opponent   string
	Games      int
	Game       string
	FirstWhite bool
	NoSwap     bool
}

// Line is one progress line of the runner.
type Line struct {
	Type   string `json:"type"`
	Match  string `json:"match,omitempty"`
	Ply    int    `json:"ply,omitempty"`
	Move   string `json:"move,omitempty"`
	Result string `json:"result,omitempty"`
	Reason string `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
	Error  string `json:"error,omitempty"`
	// Series, on a series line: the W-D-L line and the score.
	Series string `json:"series,omitempty"`
	Score  *Score `json:"score,omitempty"`
	At     int64  `json:"at"`
}

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

// challengeList invites each player of Config.Challenge that no earlier
// run invited. The file entry is written before the challenge is signed:
// a crash in between loses that one invitation rather than doubling it.
func (r *Runner) challengeList() {
	path := filepath.Join(r.cfg.Dir, "challenged.jsonl")
	done := map[string]bool{}
	es, err := readEntries(path)
	if err != nil {
		r.out(Line{Type: "error", Error: err.Error()})
		return
	}
	for _, e := range es {
		done[e.Note] = true
	}
	for _, who := range r.cfg.Challenge {
		if done[who] || r.ctx.Err() != nil {
			continue
		}
		if err := appendEntry(path, Entry{Type: EntryAction, Action: "challenge", Note: who, At: r.now()}); err != nil {
			r.out(Line{Type: "error", Error: err.Error()})
			return
		}
		rep, err := r.cfg.Seat.Challenge(r.ctx, r.cfg.OpenGame, who)
		if err != nil {
			r.out(Line{Type: "error", Note: "challenge " + who, Error: err.Error()})
			continue
		}
		r.out(Line{Type: "challenge", Match: rep.Match, Note: "invited " + who})
	}
}

// matchmake posts the series' invitations and the open challenges due.
func (r *Runner) matchmake() {
	if r.budgetSpent() {
		return
	}
	r.mu.Lock()
	if !r.ready {
		r.mu.Unlock()
		return
	}
	var post []int
	if r.series != nil {
		for _, i := range r.series.toPost() {
			if len(r.active) >= r.cfg.Policy.MaxGames {
				break
			}
			r.series.mark(i)
			r.active["slot:"+fmt.Sprint(i)] = true
			post = append(post, i)
		}
	}
	open := 0
	for open+len(r.posted) < r.cfg.PostOpen && len(r.active) < r.cfg.Policy.MaxGames {
		r.active[fmt.Sprintf("open:%d", open)] = true
		open++
	}
	r.mu.Unlock()
	for _, i := range post {
		r.wg.Go(func() { r.postSeries(i) })
	}
	for i := range open {
		r.wg.Go(func() { r.postOpen(i) })
	}
}

func (r *Runner) postSeries(i int) {
	ctx := r.ctx
	for ctx.Err() == nil {
		if err := r.series.journal(seriesEntry{Type: "posting", Index: i}); err != nil {
			r.out(Line{Type: "error", Error: err.Error()})
			return
		}
		rep, err := r.cfg.Seat.Challenge(ctx, r.series.cfg.Game, r.series.cfg.Opponent)
		if err == nil {
			r.mu.Lock()
			delete(r.active, "slot:"+fmt.Sprint(i))
			r.active[rep.Match] = true
			r.mu.Unlock()
			_ = r.series.assign(i, rep.Match)
			r.out(Line{Type: "challenge", Match: rep.Match, Note: fmt.Sprintf("series game %d of %d, as first", i+1, r.series.cfg.Games)})
			return
		}
		r.out(Line{Type: "error", Note: "series challenge", Error: err.Error()})
		if !pause.For(ctx, r.cfg.Backoff) {
			return
		}
	}
}

func (r *Runner) postOpen(i int) {
	key := fmt.Sprintf("open:%d", i)
	rep, err := r.cfg.Seat.Challenge(r.ctx, r.cfg.OpenGame, "")
	r.mu.Lock()
	delete(r.active, key)
	if err == nil {
		r.active[rep.Match] = true
		r.posted[rep.Match] = true
	}
	r.mu.Unlock()
	if err != nil {
		r.out(Line{Type: "error", Note: "open challenge", Error: err.Error()})
		return
	}
	r.out(Line{Type: "challenge", Match: rep.Match, Note: "open challenge"})
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

func (r *Runner) seriesLine() {
	sc := r.series.score()
	typ := "series"
	if r.series.done() {
		typ = "series_over"
	}
	r.out(Line{Type: typ, Series: sc.Line(), Score: &sc})
}

// worker handles one match's events in order, keeping only the latest
// pending one.
type worker struct {
	r      *Runner
	id     string
	kick   chan struct{}
	mu     sync.Mutex
	latest *seat.StreamEvent

	journal   *Journal
	started   bool
	mover     Mover
	reasoning string // the agent's previous reasoning in this game
	comment   string // the opponent's latest table talk
	offers    map[string]bool
}

func (w *worker) take() *seat.StreamEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	ev := w.latest
	w.latest = nil
	return ev
}

func (w *worker) pending() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest != nil
}

func (w *worker) run() {
	ctx := w.r.ctx
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.kick:
		}
		ev := w.take()
		if ev == nil {
			continue
		}
		backoff := w.r.cfg.Backoff
		for {
			done, err := w.handle(ctx, *ev)
			if done {
				if w.mover != nil {
					_ = w.mover.Close()
					w.mover = nil
				}
				return
			}
			if err == nil || ctx.Err() != nil {
				break
			}
			w.r.out(Line{Type: "error", Match: w.id, Note: ev.Type, Error: err.Error()})
			if !pause.For(ctx, backoff) || w.pending() {
				break
			}
			backoff = min(2*backoff, time.Minute)
		}
	}
}

func (w *worker) openJournal() error {
	if w.journal != nil {
		return nil
	}
	j, err := OpenJournal(w.r.games, w.id)
	if err != nil {
		return err
	}
	w.journal = j
	return nil
}

func (w *worker) log(e Entry) error {
	if err := w.openJournal(); err != nil {
		return err
	}
	e.Match = w.id
	e.At = w.r.now()
	return w.journal.Append(e)
}

// handle acts on one event; done says the worker's game is over for the
// runner (final or expired).
func (w *worker) handle(ctx context.Context, ev seat.StreamEvent) (done bool, err error) {
	s, stt := w.r.cfg.Seat, ev.Status
	if stt != nil && stt.MyRole != "" && !w.started {
		w.started = true
		if err := w.log(Entry{Type: EntryStart, Color: stt.MyColor, Note: "opponent " + ev.From}); err != nil {
			return false, err
		}
	}
	switch ev.Type {
	case seat.EventInvitation, seat.EventOpen:
		return w.accept(ctx, ev)
	case seat.EventMyTurn:
		w.comment = ev.Comment
		if w.atCap(stt) {
			return false, w.adjudicate(ctx, stt)
		}
		return false, w.move(ctx, stt)
	case seat.EventOffer:
		if w.atCap(stt) {
			return false, w.adjudicate(ctx, stt)
		}
		return false, w.offer(ctx, stt)
	case seat.EventGameOver:
		rep, err := s.SignResult(ctx, ev.Match)
		if err != nil {
			return false, refusalIsNews(err)
		}
		w.r.release(ev.Match, false)
		return false, w.log(Entry{Type: EntryAction, Action: "sign", Event: rep.Event, Result: rep.Result.Result, Reason: rep.Result.Reason})
	case seat.EventClaim:
		rep, err := s.ClaimTimeout(ctx, ev.Match)
		if err != nil {
			return false, refusalIsNews(err)
		}
		return false, w.log(Entry{Type: EntryAction, Action: "claim_timeout", Event: rep.Event})
	case seat.EventArbitration:
		return false, w.arbitrate(ctx, ev.Match)
	case seat.EventFinal:
		if err := w.final(ctx); err != nil {
			return false, err
		}
		return true, nil
	case seat.EventExpired:
		if w.r.series != nil {
			w.r.series.expired(ev.Match)
		}
		w.r.release(ev.Match, true)
		return true, w.log(Entry{Type: EntryExpired})
	}
	return false, nil
}

// accept takes an invitation or open challenge; a refusal (taken by
// another, expired) declines it and ends the worker.
func (w *worker) accept(ctx context.Context, ev seat.StreamEvent) (done bool, err error) {
	_, err = w.r.cfg.Seat.Accept(ctx, ev.Match)
	var rf *seat.Refusal
	if errors.As(err, &rf) {
		w.r.out(Line{Type: "decline", Match: ev.Match, Note: "accept refused: " + rf.Error()})
		w.r.release(ev.Match, true)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	w.r.out(Line{Type: "accept", Match: ev.Match, Note: "game " + ev.Game + " from " + ev.From})
	return false, nil
}

// arbitrate asks for arbitration of a game over for a day and still not
// final. The reasoning is due anyway (an hour after the end, section 8.2).
func (w *worker) arbitrate(ctx context.Context, id string) error {
	s := w.r.cfg.Seat
	if _, err := s.RevealDue(ctx, id); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	rep, err := s.RequestArbitration(ctx, id, "the result is still not final a day after the end (vesper play)")
	if err != nil {
		return refusalIsNews(err)
	}
	return w.log(Entry{Type: EntryAction, Action: "arbitrate", Event: rep.Event})
}

// refusalIsNews drops a refusal of a duty: the fold says it is not due (a
// newer event is on its way), which is not an error to retry.
func refusalIsNews(err error) error {
	var rf *seat.Refusal
	if errors.As(err, &rf) {
		return nil
	}
	return err
}

// checkGames refuses a game that is not one of match.Games wherever cfg
// names one, and a series of a game the policy does not play: its games
// would be declined one by one and the series would never end.
func checkGames(cfg Config) error {
	known := func(what, kind string) error {
		if _, err := match.LookupGame(kind); err != nil {
			return fmt.Errorf("play: %s %q is not a game: the games are %s", what, kind, match.KindList())
		}
		return nil
	}
	for _, g := range cfg.Policy.Games {
		if err := known("game", g); err != nil {
			return err
		}
	}
	if err := known("the open challenges' game", cfg.OpenGame); err != nil {
		return err
	}
	if cfg.Series == nil {
		return nil
	}
	if err := known("the series' game", cfg.Series.Game); err != nil {
		return err
	}
	if g := cfg.Policy.Games; len(g) > 0 && !slices.Contains(g, cfg.Series.Game) {
		return fmt.Errorf("play: the series' game %q is not one this player plays (%s)", cfg.Series.Game, strings.Join(g, ", "))
	}
	return nil
}
