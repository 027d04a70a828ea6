package play

import (
	"fmt"
	"path/filepath"

	"vesper/internal/pause"
)

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

func (r *Runner) seriesLine() {
	sc := r.series.score()
	typ := "series"
	if r.series.done() {
		typ = "series_over"
	}
	r.out(Line{Type: typ, Series: sc.Line(), Score: &sc})
}
