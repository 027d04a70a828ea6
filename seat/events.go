package seat

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// Types of the key's stream events (Events). The match ones are Wait's
// reasons; the others say what Wait cannot: a challenge to take, a clock
// that ran out, a signature still missing a day after the end.
const (
	EventInvitation  = "challenge"      // an open challenge inviting the key
	EventOpen        = "open_challenge" // an open challenge anyone may take (StreamOptions.Open)
	EventMyTurn      = WakeMyTurn
	EventOffer       = WakeOffer
	EventRequest     = WakeRequest
	EventGameOver    = WakeGameOver
	EventFinal       = WakeFinal
	EventExpired     = WakeExpired
	EventClaim       = WakeClaimTimeout // the opponent's clock ran out: the key may claim the win
	EventArbitration = WakeArbitrate    // over, signed by the key, not final a day after the end
	EventTheirTurn   = "their_turn"     // the game is in progress and the opponent is to move
	EventPosted      = "posted"         // the key's own challenge, open and not accepted yet
)

// StreamEvent is one line of the stream: what happened, in which match, and
// the match as this seat folds it then.
type StreamEvent struct {
	Type  string `json:"type"`
	Match string `json:"match"`
	Game  string `json:"game"`
	// From is the challenger of a challenge, the opponent otherwise.
	From string `json:"from,omitempty"`
	// Comment is the opponent's latest table talk: the comment tag of its
	// latest counted move (PROTOCOL.md section 8.1), cut to 300 code
	// points, without control or bidi characters (nostr.CleanTalk).
	// CommentNote, with it, says whose words they are (UntrustedNote).
	Comment     string  `json:"comment,omitempty"`
	CommentNote string  `json:"comment_note,omitempty"`
	At          int64   `json:"at"`
	Status      *Status `json:"status"`
}

// StreamOptions tune Events.
type StreamOptions struct {
	// Open adds the open challenges of others (EventOpen).
	Open bool
	// Follow are matches to follow besides those the key's challenges and
	// accepts name: a runner's unfinished games, which may be older than
	// the week the stream looks back.
	Follow []string
	// Ready, when set, is called once every relay has reported (its stored
	// events delivered, or failed) for the first time.
	Ready func()
}

// lookBack is how far back the stream asks for the key's challenges and
// accepts: a challenge expires unaccepted after a week (section 2).
const lookBack = match.ChallengeExpiry

// Events follows everything that concerns the seat's key on one set of live
// subscriptions (one per relay, reopened after a drop and when the set of
// matches followed changes) and calls emit, from one goroutine, with each
// event: a challenge inviting the key, an open challenge (with Open), the
// key's turn, an offer, a request, the game over, a clock run out, an
// arbitration due, the result final. Time-based events (clocks, expiry)
// come from a timer on the folded states, not from polling relays. A match
// already final when first seen emits nothing unless Follow names it. It
// returns when ctx is done.
func (s *Seat) Events(ctx context.Context, opts StreamOptions, emit func(StreamEvent)) error {
	if err := s.needKey(); err != nil {
		return err
	}
	if len(s.Relays) == 0 {
		return &RelayError{What: "follow events"}
	}
	st := &streamer{s: s, me: s.Me(), opts: opts, emit: emit, kick: make(chan struct{}, 1),
		events: map[string]*nostr.Event{}, seen: map[string]int64{}, byMatch: map[string][]string{},
		follow: map[string]bool{}, last: map[string]string{}, finalAtStart: map[string]bool{}, due: map[string]int64{},
		reported: map[string]bool{}, read: map[string]bool{}}
	for _, id := range opts.Follow {
		st.follow[id] = true
		st.explicit = append(st.explicit, id)
	}
	return st.run(ctx)
}

type streamer struct {
	s    *Seat
	me   string
	opts StreamOptions
	emit func(StreamEvent)
	kick chan struct{}

	mu       sync.Mutex
	events   map[string]*nostr.Event
	seen     map[string]int64
	byMatch  map[string][]string // match id -> its event ids
	follow   map[string]bool     // matches whose events the subscription asks for
	dirty    []string
	live     bool            // the current subscription has delivered a relay's stored events
	reported map[string]bool // relays heard from in the current subscription
	resub    bool            // the followed set grew: reopen the subscription
	// read are the matches whose whole history has been asked for by paged
	// REQs (history), and reading how many such reads are under way: the
	// folds wait for them, since a live subscription's stored events are
	// only the newest the relay lets through.
	read    map[string]bool
	keyRead bool
	reading int

	// Loop-only state.
	explicit     []string
	last         map[string]string // match -> key of the last event emitted
	finalAtStart map[string]bool
	due          map[string]int64 // match -> when its clock or expiry next comes due
	readyDone    bool
}

func (st *streamer) signal() {
	select {
	case st.kick <- struct{}{}:
	default:
	}
}

func (st *streamer) run(ctx context.Context) error {
	cancel := st.subscribe(ctx)
	defer func() { cancel() }()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-st.kick:
		case <-timer.C:
			// A clock or an expiry came due: look at every match again.
			st.mu.Lock()
			for id := range st.byMatch {
				st.dirty = append(st.dirty, id)
			}
			st.mu.Unlock()
		}
		st.mu.Lock()
		resub, live, all := st.resub, st.live && st.reading == 0, len(st.reported) >= len(st.s.Relays)
		st.mu.Unlock()
		if resub {
			// The new subscription re-sends what the old one did; events
			// are kept by id, so nothing is lost in the swap.
			cancel()
			cancel = st.subscribe(ctx)
			continue
		}
		if !live {
			continue
		}
		next := st.evaluate()
		if all && !st.readyDone {
			st.readyDone = true
			if st.opts.Ready != nil {
				st.opts.Ready()
			}
		}
		timer.Reset(next)
	}
}

// evaluate folds the dirty matches, emits what changed, and returns how
// long until the earliest clock or expiry among the followed matches.
func (st *streamer) evaluate() time.Duration {
	st.mu.Lock()
	dirty := st.dirty
	st.dirty = nil
	st.mu.Unlock()
	slices.Sort(dirty)
	dirty = slices.Compact(dirty)
	for _, id := range dirty {
		if st.unread(id) {
			continue
		}
		snap := st.snapshot(id)
		if snap == nil {
			continue
		}
		st.consider(snap)
	}
	return st.nextDue()
}

// unread reports a followed match whose history no relay has answered
// whole yet: folding its newest events alone could report a finished game
// as live or lost on time, so it is held until a read succeeds (history
// marks it dirty then).
func (st *streamer) unread(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.follow[id] && !st.read[id]
}

func (st *streamer) snapshot(id string) *Snapshot {
	st.mu.Lock()
	snap := &Snapshot{SeenAt: map[string]int64{}, Failed: map[string]string{}, HeldBy: map[string][]string{}, At: st.s.now().Unix()}
	for _, eid := range st.byMatch[id] {
		snap.Events = append(snap.Events, relay.Received{Event: st.events[eid]})
		snap.SeenAt[eid] = st.seen[eid]
	}
	if ch := st.events[id]; ch != nil && !slices.Contains(st.byMatch[id], id) {
		snap.Events = append(snap.Events, relay.Received{Event: ch})
		snap.SeenAt[id] = st.seen[id]
	}
	st.mu.Unlock()
	sortReceived(snap.Events)
	if err := snap.fold(id); err != nil {
		return nil
	}
	return snap
}

// consider emits the match's event when it differs from the last emitted.
func (st *streamer) consider(snap *Snapshot) {
	now := st.s.now().Unix()
	m := snap.State
	stt := snap.Status(st.me, now)
	typ, from := st.classify(m, stt, now)
	id := m.Match
	switch {
	case m.Final:
		delete(st.due, id)
	case !m.Accepted:
		st.due[id] = m.Clock().Expires() + 1
	default:
		st.due[id] = m.Deadline() + 1
	}
	if _, seenBefore := st.last[id]; !seenBefore {
		st.last[id] = ""
		if m.Final && !slices.Contains(st.explicit, id) {
			st.finalAtStart[id] = true
		}
	}
	if typ == "" || st.finalAtStart[id] {
		if m.Final {
			st.unfollow(id)
		}
		return
	}
	key := fmt.Sprintf("%s:%d:%d:%d:%v", typ, m.Plies(), len(m.Sigs), len(m.Requests), stt.Offer != nil && stt.Offer.Event != "")
	if stt.Offer != nil {
		key += ":" + stt.Offer.Event
	}
	if st.last[id] == key {
		return
	}
	st.last[id] = key
	comment := st.comment(m, from)
	st.emit(StreamEvent{Type: typ, Match: id, Game: m.Kind, From: from, At: now, Status: stt, Comment: comment, CommentNote: noteFor(comment)})
	if m.Final {
		st.unfollow(id)
	}
}

// comment is the table talk of from's latest counted move.
func (st *streamer) comment(m *match.State, from string) string {
	if from == "" {
		return ""
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for i := len(m.MoveEvents) - 1; i >= 0; i-- {
		ev := st.events[m.MoveEvents[i]]
		if ev == nil || ev.PubKey != from {
			continue
		}
		// Section 8.1's cut lives in nostr.Comment, with the tag's name.
		text, _ := nostr.Comment(ev)
		return nostr.CleanTalk(text)
	}
	return ""
}

// unfollow drops a final match from the subscription's next generation.
func (st *streamer) unfollow(id string) {
	st.mu.Lock()
	delete(st.follow, id)
	st.mu.Unlock()
}

// classify names the match's event for the key ("" for none). The order is
// Wait's, with the claims and challenges it does not know.
func (st *streamer) classify(m *match.State, stt *Status, now int64) (typ, from string) {
	me := st.me
	role := m.Role(me)
	if role == "" {
		switch {
		case m.Accepted || m.Status(now) != match.StatusOpen || m.First == me:
			return "", ""
		case m.Invitee == me:
			return EventInvitation, m.First
		case m.Invitee == "" && st.opts.Open:
			return EventOpen, m.First
		}
		return "", ""
	}
	from = m.Player(otherRole(role))
	if stt.CanClaimTimeout {
		return EventClaim, from
	}
	if r, _ := st.s.wakeReason(m, stt, nil, time.Unix(now, 0)); r != "" {
		return r, from
	}
	if m.Over && !m.Final && m.Clock().DeadlinePassed(now) && !stt.MustSign && !requested(m, me) {
		return EventArbitration, from
	}
	switch {
	case m.Accepted && !m.Over:
		return EventTheirTurn, from
	case !m.Accepted && role == match.First && m.Status(now) == match.StatusOpen:
		return EventPosted, m.Invitee
	}
	return "", from
}

func requested(m *match.State, me string) bool {
	for _, q := range m.Requests {
		if q.Author == me {
			return true
		}
	}
	return false
}

// nextDue is the time until the earliest deadline or expiry to come among
// the matches seen (an hour at most, so a clock that jumped is caught up).
func (st *streamer) nextDue() time.Duration {
	now := st.s.now().Unix()
	next := now + 3600
	for _, due := range st.due {
		if due > now && due < next {
			next = due
		}
	}
	return time.Duration(next-now) * time.Second
}
