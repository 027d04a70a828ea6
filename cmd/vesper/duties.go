package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"vesper/arbiter"
	"vesper/engine"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

func workers() int { return runtime.GOMAXPROCS(0) }

// sent is what one pass of duties did, for `arbiter --once` and logs.
type sent struct {
	Duty   string   `json:"duty"`
	Event  string   `json:"event"`
	Kind   int      `json:"kind"`
	SentTo []string `json:"sent_to"`
	Error  string   `json:"error,omitempty"`
}

// decide runs the arbiter over the live states and records every new duty
// in the outbox, signed, before anything is sent: a restart then finds the
// duty recorded and publishes that same event instead of signing another.
func (n *node) decide(ctx context.Context) (int, error) {
	if n.self == "" {
		return 0, nil
	}
	now := n.clock()
	recorded := 0
	for _, in := range arbiter.Decide(n.live(now), n.self, n.cfg, now) {
		has, err := n.st.OutboxHas(ctx, in.Duty)
		if err != nil {
			return recorded, err
		}
		if has {
			continue
		}
		s := n.state(in.Match)
		if s == nil {
			continue
		}
		move := ""
		if in.Kind == arbiter.PlayMove {
			if move, err = n.chooseMove(s); err != nil {
				n.log.Warn("engine found no move", "match", in.Match, "err", err)
				continue
			}
		}
		ev := in.Event(s.Stamp(now), move)
		if err := n.key.Sign(ev); err != nil {
			return recorded, err
		}
		added, _, err := n.st.OutboxAdd(ctx, in.Duty, ev)
		if err != nil {
			return recorded, err
		}
		if added {
			recorded++
			n.log.Info("duty recorded", "duty", in.Duty, "event", ev.ID, "kind", ev.Kind)
			// Our own event is an event of the match like any other: store
			// it now so the state moves on without waiting for a relay echo.
			if _, err := n.ingest(ctx, []relay.Received{{Event: ev, Relay: "", Raw: nostr.MarshalEvent(ev)}}); err != nil {
				return recorded, err
			}
		}
	}
	return recorded, nil
}

// profileDuty publishes the daemon's kind 0 once per profile version: it
// declares a bot (NIP-24) and says what the key does.
func (n *node) profileDuty(ctx context.Context) error {
	if n.self == "" {
		return nil
	}
	duty := "profile:" + n.self + ":v1"
	if has, err := n.st.OutboxHas(ctx, duty); err != nil || has {
		return err
	}
	ev := &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(n.clock()),
		Content: `{"name":"vesper house","bot":true,"about":"The vesper daemon: verifier, fallback arbiter and house player. It accepts open chess and gomoku challenges nobody took for 30 minutes and plays them with its built-in engine."}`}
	if err := n.key.Sign(ev); err != nil {
		return err
	}
	_, _, err := n.st.OutboxAdd(ctx, duty, ev)
	return err
}

// chooseMove asks the engine for a move within the think budget.
func (n *node) chooseMove(s *match.State) (string, error) {
	lim := engine.Limits{Time: n.think}
	if s.Kind == nostr.GameGomoku {
		return engine.BestGomokuMove(s.Moves, lim)
	}
	return engine.BestChessMove("", s.Moves, lim)
}

// publishPending sends every outbox event not yet acknowledged to all
// relays in parallel; one acknowledgement marks it done.
func (n *node) publishPending(ctx context.Context, timeout time.Duration) ([]sent, error) {
	items, err := n.st.OutboxPending(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]sent, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func(i int, it store.OutboxItem) {
			defer wg.Done()
			res := relay.Publish(ctx, n.relays, it.Event, timeout)
			ok := relay.Accepted(res)
			d := sent{Duty: it.Duty, Event: it.Event.ID, Kind: it.Event.Kind, SentTo: ok}
			if len(ok) > 0 {
				if err := n.st.OutboxMarkSent(ctx, it.Duty, ok); err != nil {
					d.Error = err.Error()
				}
				n.met.published(true)
			} else {
				d.Error = publishError(res)
				n.met.published(false)
				if err := n.st.OutboxAttempt(ctx, it.Duty, d.Error); err != nil {
					d.Error += "; " + err.Error()
				}
			}
			out[i] = d
		}(i, it)
	}
	wg.Wait()
	return out, nil
}

func publishError(res []relay.PublishResult) string {
	if len(res) == 0 {
		return "no relays configured"
	}
	msg := "no relay accepted:"
	for _, r := range res {
		why := r.Message
		if r.Err != nil {
			why = r.Err.Error()
		}
		msg += fmt.Sprintf(" %s (%s)", r.Relay, why)
	}
	return msg
}
