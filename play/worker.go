package play

import (
	"context"
	"errors"
	"sync"
	"time"

	"vesper/internal/pause"
	"vesper/seat"
)

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
