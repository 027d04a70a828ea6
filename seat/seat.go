package seat

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
)

// Seat is one agent's place at the table: its key, its relays and its clock.
// The zero Key makes a read-only seat (status, games of another key).
type Seat struct {
	Relays []string
	Key    nostr.SecretKey
	// Timeout bounds each relay's part of a read or a publication [10s]:
	// a relay that accepts the connection and never answers costs this,
	// once, and the answers of the others are used.
	Timeout time.Duration
	// MaxAhead is how far ahead of this clock the match's latest event may
	// be stamped before the seat refuses to sign after it; up to it, the
	// seat waits the difference out [5s].
	MaxAhead time.Duration
	// Now is the clock [time.Now].
	Now func() time.Time
	// LockDir holds the lock files that serialise this key's actions in a
	// match across processes [vesper/locks in the user's cache directory].
	LockDir string
	// JournalDir holds the reasoning journal: the salts and texts of the
	// reasoning this key committed, kept until revealed (section 8.2)
	// [vesper/reasoning/<pubkey> in the user's config directory].
	JournalDir string
	// AllowPrivateRelays lets relays named by others (hints in a shared
	// nevent, players' relay lists) be private, loopback or link-local
	// addresses (internal/netguard); Relays are always dialed as written.
	// Only the operator sets it (--allow-private-relays).
	AllowPrivateRelays bool

	// AfterPublish, when set, is called after each match event the seat
	// publishes and before anything that follows it (a reveal): a crash
	// test stops the process there.
	AfterPublish func(ev *nostr.Event)
	// BeforePublish, when set, is called with each match event the seat
	// has signed, once the fold has agreed to it and its reasoning is
	// journaled, before it is sent: a runner journals the exact event
	// there, so that after a crash it sends that event again (Resend)
	// rather than signing a second one. An error stops the publication.
	BeforePublish func(ev *nostr.Event) error

	// sleep, when set (tests), replaces the timer waitFor waits on.
	sleep func(ctx context.Context, d time.Duration) error
}

func (s *Seat) timeout() time.Duration {
	if s.Timeout <= 0 {
		return 10 * time.Second
	}
	return s.Timeout
}

func (s *Seat) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Me is the seat's public key, "" for a read-only seat.
func (s *Seat) Me() string {
	if s.Key.IsZero() {
		return ""
	}
	return s.Key.PublicKey()
}

// Snapshot is a match as read from the relays: the fold of every event
// received, with this seat's receipt times as seen_at (PROTOCOL.md section
// 7), so that it counts what a verifier receiving the events now counts.
type Snapshot struct {
	State  *match.State
	SeenAt map[string]int64
	// Events are the received events in fold order, with the relay that
	// first sent each.
	Events []relay.Received
	// Answered lists the relays that answered; Failed the others, with why.
	Answered []string
	Failed   map[string]string
	// HeldBy lists, per event id, the relays that sent it (or took it,
	// for an event this seat published): the hints of its nevent.
	HeldBy map[string][]string
	// At is when the read started (unix seconds).
	At int64

	// hints are the relays the match reference named (an nevent's): the
	// read asked them, and every event the seat signs in the match goes to
	// them too, since that is where the other player looks (NIP-19).
	hints []string
}

// Read fetches a match (an id, nevent or note) from every relay in
// parallel, each within Timeout, and folds what arrived. An nevent's relay
// hints are asked too (NIP-19). It succeeds when at least one relay
// answered and one of them had the challenge; the relays that did not
// answer are listed in Failed.
func (s *Seat) Read(ctx context.Context, ref string) (*Snapshot, error) {
	id, hints, err := matchRef(ref)
	if err != nil {
		return nil, inputf("MATCH: %v", err)
	}
	res, err := s.fetchFrom(ctx, withRelays(s.Relays, hints), relay.MatchFilters(id), "read match "+id)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Answered: res.answered, Failed: res.failed, At: res.at, SeenAt: map[string]int64{}, Events: res.events,
		HeldBy: res.heldBy, hints: hints}
	for _, r := range res.events {
		snap.SeenAt[r.Event.ID] = res.at
	}
	if err := snap.fold(id); err != nil {
		return nil, err
	}
	return snap, nil
}

func (snap *Snapshot) fold(id string) error {
	evs := make([]*nostr.Event, 0, len(snap.Events))
	for _, r := range snap.Events {
		evs = append(evs, r.Event)
	}
	st, err := match.Fold(id, evs, snap.SeenAt)
	if err != nil {
		var nm *match.NoMatchError
		if errors.As(err, &nm) {
			return &NotFoundError{Match: id, Why: nm.Why, Failed: snap.Failed, Searched: snap.Answered}
		}
		return fmt.Errorf("seat: match %s: %w", id, err)
	}
	snap.State = st
	return nil
}

type fetched struct {
	events   []relay.Received
	answered []string
	failed   map[string]string
	heldBy   map[string][]string // event id -> relays that sent it
	at       int64
	needAuth []string // relays that refused to be read without NIP-42 AUTH, and no key
}

// fetch asks each relay alone, so that one failing relay is named and the
// events of the others are kept. The receipt time given to every event is
// the start of the read: never later than the real receipt, so the seat's
// fold is at least as strict on rule 5 as a verifier's.
func (s *Seat) fetch(ctx context.Context, filters []gn.Filter, what string) (*fetched, error) {
	return s.fetchFrom(ctx, s.Relays, filters, what)
}

// fetchFrom is fetch from relays.
func (s *Seat) fetchFrom(ctx context.Context, relays []string, filters []gn.Filter, what string) (*fetched, error) {
	out := &fetched{failed: map[string]string{}, heldBy: map[string][]string{}, at: s.now().Unix()}
	if len(relays) == 0 {
		return nil, &RelayError{What: what}
	}
	var (
		mu   sync.Mutex
		byID = map[string]relay.Received{}
		wg   sync.WaitGroup
	)
	guard := s.guard(relays)
	for _, url := range relays {
		wg.Go(func() {
			got, err := relay.FetchWith(ctx, []string{url}, filters, relay.FetchOptions{Timeout: s.timeout(), Key: s.Key, Guard: guard})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				out.failed[url] = shortErr(err, url)
				if errors.Is(err, relay.ErrAuthNoKey) {
					out.needAuth = append(out.needAuth, url)
				}
				return
			}
			out.answered = append(out.answered, url)
			for _, r := range got {
				if _, ok := byID[r.Event.ID]; !ok {
					byID[r.Event.ID] = r
				}
				out.heldBy[r.Event.ID] = append(out.heldBy[r.Event.ID], r.Relay)
			}
		})
	}
	wg.Wait()
	if len(out.answered) == 0 {
		sortStrings(out.needAuth)
		return nil, &RelayError{What: what, Failed: out.failed, NeedAuth: out.needAuth}
	}
	for _, r := range byID {
		out.events = append(out.events, r)
	}
	sortReceived(out.events)
	sortStrings(out.answered)
	return out, nil
}

// publish sends a signed event to every relay of the seat, and to extra
// (the read relays of someone it tags), and reports which accepted; none
// accepting is a RelayError.
func (s *Seat) publish(ctx context.Context, ev *nostr.Event, extra ...string) ([]string, map[string]string, error) {
	// A read relay of the person tagged may well announce restricted
	// writes: inbox relays take what tags their users, and only that.
	res := relay.PublishWith(ctx, withRelays(s.Relays, extra), ev, relay.PublishOptions{Timeout: s.timeout(), Key: s.Key, MayWrite: extra,
		Guard: s.guard(extra)})
	accepted := relay.Accepted(res)
	failed := map[string]string{}
	for _, r := range res {
		if !contains(accepted, r.Relay) {
			msg := r.Message
			if r.Err != nil {
				msg = shortErr(r.Err, r.Relay)
			}
			failed[r.Relay] = msg
		}
	}
	if len(accepted) == 0 {
		return nil, failed, &RelayError{What: "publish event " + ev.ID, Failed: failed}
	}
	if accepted == nil {
		accepted = []string{}
	}
	return accepted, failed, nil
}

func (s *Seat) maxAhead() time.Duration {
	if s.MaxAhead <= 0 {
		return 5 * time.Second
	}
	return s.MaxAhead
}

// stamp is the created_at of the seat's next event in the match (PROTOCOL.md
// section 7): the fold's State.Stamp, max(now, latest used + 1). It may be
// up to MaxAhead ahead of this clock, and the event is then held back until
// the clock reaches it (waitFor); beyond that the seat refuses. It does not
// wait itself, so that the fold is asked first and a refusal costs nothing.
func (s *Seat) stamp(st *match.State) (int64, error) {
	now := s.now()
	t := st.Stamp(now.Unix())
	if ahead := time.Unix(t, 0).Sub(now); ahead > s.maxAhead() {
		return 0, &Refusal{Rule: RuleStampAhead, Match: st.Match,
			Reason: fmt.Sprintf("the match's latest event is stamped %d, %s ahead of this clock; an event after it would be stamped in the future (fix the clock, or wait)",
				st.LastUsed, ahead.Round(time.Second))}
	}
	return t, nil
}

// waitFor returns once this clock has reached t, so that no event is
// published before the second it is stamped with (section 7).
func (s *Seat) waitFor(ctx context.Context, t int64) error {
	for {
		ahead := time.Unix(t, 0).Sub(s.now())
		if ahead <= 0 {
			return nil
		}
		if s.sleep != nil {
			if err := s.sleep(ctx, ahead); err != nil {
				return err
			}
			continue
		}
		tm := time.NewTimer(ahead)
		select {
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-tm.C:
		}
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
