package daemon

import (
	"context"
	"fmt"
	"runtime"
	"sort"
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

// Sent is what one pass of duties did, for `arbiter --once` and logs.
type Sent struct {
	Duty   string   `json:"duty"`
	Event  string   `json:"event"`
	Kind   int      `json:"kind"`
	SentTo []string `json:"sent_to"`
	Error  string   `json:"error,omitempty"`
}

// decide runs the arbiter over the live states and records every new duty
// in the outbox, signed, before anything is sent: a restart then finds the
// duty recorded and publishes that same event instead of signing another.
// One pass records at most lim.DutiesPerPass duties, its own games first;
// the rest are decided again at the next pass, so a thousand matches made
// to need a ruling at once come out at the rate the operator set, and no
// more than lim.RulingsPerHour rulings an hour (the rest wait for a later
// hour's budget). A duty whose event would be stamped more than
// lim.MaxSkew ahead of the clock (an opponent stamped the match in the
// future) waits until it would not.
func (n *Daemon) decide(ctx context.Context) (int, error) {
	if n.self == "" {
		return 0, nil
	}
	now := n.clock()
	intents := arbiter.Decide(n.live(now), n.self, n.cfg, now)
	sort.SliceStable(intents, func(i, j int) bool { return dutyRank(intents[i].Kind) < dutyRank(intents[j].Kind) })
	rulings, err := n.hourBudget(ctx, "ruling:", n.lim.RulingsPerHour, now)
	if err != nil {
		return 0, err
	}
	recorded, heldBack := 0, 0
	for _, in := range intents {
		if n.lim.DutiesPerPass > 0 && recorded >= n.lim.DutiesPerPass {
			n.met.deferDuty("per_pass")
			continue
		}
		budget := -1
		if in.Kind == arbiter.Rule {
			budget = rulings
		}
		out, err := n.perform(ctx, in, budget, now)
		if err != nil {
			return recorded, err
		}
		switch out {
		case dutyRecorded:
			recorded++
			if in.Kind == arbiter.Rule {
				rulings--
			}
		case dutyHeldBack:
			heldBack++
		}
	}
	n.met.heldBack("rulings", heldBack)
	return recorded, nil
}

// What perform did with a duty.
type dutyOutcome int

const (
	dutySkipped  dutyOutcome = iota // recorded already, or not (yet) to be signed
	dutyRecorded                    // signed and recorded
	dutyHeldBack                    // due, but its hourly budget is spent
)

// perform signs and records one duty unless it is recorded already, the
// budget (-1: none) is spent, or its event would be stamped too far ahead.
func (n *Daemon) perform(ctx context.Context, in arbiter.Intent, budget int, now int64) (dutyOutcome, error) {
	has, err := n.st.OutboxHas(ctx, in.Duty)
	if err != nil || has {
		return dutySkipped, err
	}
	s := n.state(in.Match)
	if s == nil {
		return dutySkipped, nil
	}
	if budget == 0 {
		n.met.deferDuty("rulings_per_hour")
		return dutyHeldBack, nil
	}
	stamp := s.Stamp(now)
	if n.lim.MaxSkew > 0 && stamp > now+n.lim.MaxSkew {
		n.met.deferDuty("skew")
		n.log.Debug("duty deferred: it would be stamped ahead of the clock", "duty", in.Duty, "stamp", stamp, "now", now)
		return dutySkipped, nil
	}
	ev, err := n.dutyEvent(s, in, stamp, now)
	if err != nil || ev == nil {
		return dutySkipped, err
	}
	added, _, err := n.st.OutboxAdd(ctx, in.Duty, ev)
	if err != nil || !added {
		return dutySkipped, err
	}
	n.log.Info("duty recorded", "duty", in.Duty, "event", ev.ID, "kind", ev.Kind)
	// Our own event is an event of the match like any other: store it now
	// so the state moves on without waiting for a relay echo.
	_, err = n.ingest(ctx, []relay.Received{{Event: ev, Relay: ""}})
	return dutyRecorded, err
}

// dutyEvent builds and signs the event of a duty, or returns nil when the
// engine finds no move or the fold would not count the event.
func (n *Daemon) dutyEvent(s *match.State, in arbiter.Intent, stamp, now int64) (*nostr.Event, error) {
	move := ""
	if in.Kind == arbiter.PlayMove {
		var err error
		if move, err = n.chooseMove(s); err != nil {
			n.log.Warn("engine found no move", "match", in.Match, "err", err)
			return nil, nil
		}
	}
	ev := in.Event(stamp, move)
	// The fold decides, before anything is signed, whether it would count
	// this event if a verifier received it now (the accept window, the
	// clock, the ply...): the house never signs an event that verifiers
	// would ignore.
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	ev.PubKey = n.self
	ev.ID = nostr.ComputeID(ev)
	if ig := s.Check(ev, now); ig != nil {
		n.met.deferDuty("fold")
		n.log.Warn("duty not signed: the fold would ignore it", "duty", in.Duty, "rule", ig.Token, "why", ig.Detail)
		return nil, nil
	}
	return ev, n.key.Sign(ev)
}

// hourBudget is what is left of an hourly budget of limit duties named
// prefix..., counted from the outbox (so a restart does not refill it):
// -1 for no budget (limit <= 0).
func (n *Daemon) hourBudget(ctx context.Context, prefix string, limit int, now int64) (int, error) {
	if limit <= 0 {
		return -1, nil
	}
	spent, err := n.st.OutboxCountSince(ctx, prefix, now-3600)
	return max(limit-spent, 0), err
}

// dutyRank orders a pass: the house's own games (whose clocks run) before
// new games, and those before fallback rulings, which anyone may publish.
func dutyRank(k arbiter.Kind) int {
	switch k {
	case arbiter.SignResult, arbiter.ClaimTimeout, arbiter.PlayMove:
		return 0
	case arbiter.Accept:
		return 1
	}
	return 2
}

// profileDuty publishes the daemon's kind 0 once per profile version: it
// declares a bot (NIP-24) and says what the key does.
func (n *Daemon) profileDuty(ctx context.Context) error {
	if n.self == "" {
		return nil
	}
	duty := "profile:" + n.self + ":v1"
	if has, err := n.st.OutboxHas(ctx, duty); err != nil || has {
		return err
	}
	ev := &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(n.clock()),
		Content: `{"name":"vesper house","bot":true,"about":"The vesper daemon: verifier, fallback arbiter and house player. It accepts open ` + match.NounList() + ` challenges nobody took for 30 minutes and plays them with its built-in engine."}`}
	if err := n.key.Sign(ev); err != nil {
		return err
	}
	if _, _, err := n.st.OutboxAdd(ctx, duty, ev); err != nil {
		return err
	}
	// The house's profile is a profile like any other: stored, the pages
	// show its name and bot tag without waiting for a relay echo.
	return n.st.PutProfile(ctx, ev)
}

// chooseMove asks the engine for a move within the think budget.
func (n *Daemon) chooseMove(s *match.State) (string, error) {
	return engine.BestMove(s.Kind, s.Moves, engine.Limits{Time: n.think})
}

// publishPending sends every outbox event not yet acknowledged to all
// relays, each on a connection of its own (`arbiter --once`, which runs no
// client); publishPendingVia is the daemon's.
func (n *Daemon) publishPending(ctx context.Context, timeout time.Duration) ([]Sent, error) {
	return n.publishPendingVia(ctx, nil, timeout)
}

// publishPendingVia sends every outbox event not yet acknowledged to all
// relays, on client's connections when client is not nil (one per relay,
// with AUTH: a flood of rulings no longer opens a socket per item and
// relay); one acknowledgement marks it done, and a relay that is down is
// skipped, the item retried at the next pass if no relay took it. Items go
// out in the order recorded: those of one match one after another (a move
// at ply 3 before the one at ply 5, and none after one that failed), at
// most lim.PublishParallel matches at once.
func (n *Daemon) publishPendingVia(ctx context.Context, client *relay.Client, timeout time.Duration) ([]Sent, error) {
	items, err := n.st.OutboxPending(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Sent, len(items))
	var order []string
	queues := map[string][]int{}
	for i, it := range items {
		key := outboxQueue(it)
		if _, ok := queues[key]; !ok {
			order = append(order, key)
		}
		queues[key] = append(queues[key], i)
	}
	par := n.lim.PublishParallel
	if par <= 0 {
		par = 1
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for _, key := range order {
		sem <- struct{}{}
		wg.Add(1)
		go func(idx []int) {
			defer func() { <-sem; wg.Done() }()
			failed := false
			for _, i := range idx {
				it := items[i]
				if failed || ctx.Err() != nil {
					out[i] = Sent{Duty: it.Duty, Event: it.Event.ID, Kind: it.Event.Kind, Error: "waiting for an earlier event of the match"}
					continue
				}
				out[i] = n.publishOne(ctx, client, it, timeout)
				failed = out[i].Error != "" && len(out[i].SentTo) == 0
			}
		}(queues[key])
	}
	wg.Wait()
	return out, nil
}

// outboxQueue names the sequence an outbox item must keep its place in:
// its match (the g tag), else its own duty.
func outboxQueue(it store.OutboxItem) string {
	if refs := nostr.MatchRefs(it.Event); len(refs) > 0 {
		return "match:" + refs[0]
	}
	return "duty:" + it.Duty
}

func (n *Daemon) publishOne(ctx context.Context, client *relay.Client, it store.OutboxItem, timeout time.Duration) Sent {
	var res []relay.PublishResult
	if client != nil {
		res = client.Publish(ctx, it.Event, timeout)
	} else {
		// The key answers NIP-42 AUTH here too: a relay that asks for it
		// would otherwise refuse every duty.
		res = relay.PublishWith(ctx, n.relays, it.Event, relay.PublishOptions{Timeout: timeout, Key: n.key, Logger: n.log})
	}
	ok := relay.Accepted(res)
	d := Sent{Duty: it.Duty, Event: it.Event.ID, Kind: it.Event.Kind, SentTo: ok}
	if len(ok) > 0 {
		if err := n.st.OutboxMarkSent(ctx, it.Duty, ok); err != nil {
			d.Error = err.Error()
		}
		n.met.published(true)
		return d
	}
	d.Error = publishError(res)
	n.met.published(false)
	if err := n.st.OutboxAttempt(ctx, it.Duty, d.Error); err != nil {
		d.Error += "; " + err.Error()
	}
	return d
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
