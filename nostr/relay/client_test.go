package relay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
	"vesper/relayd"
)

func TestStoredThenLive(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	challenge := relaytest.Sign(t, key, nostr.NewChallenge("chess", "", now-100))
	stored := []*nostr.Event{challenge, relaytest.Move(t, key, challenge.ID, 1, now-50)}
	relaytest.Seed(t, r, stored...)
	offTopic := relaytest.Sign(t, key, &nostr.Event{Kind: nostr.KindChallenge, CreatedAt: gn.Timestamp(now - 10), Tags: nostr.Tags{{"t", "other"}}})
	oldReferee := relaytest.Sign(t, key, &nostr.Event{Kind: nostr.KindOldReferee, CreatedAt: gn.Timestamp(now - 10), Tags: nostr.Tags{{"g", challenge.ID}}})
	relaytest.Seed(t, r, offTopic, oldReferee)

	c, s := run(t, fastConfig(r.URL()))
	waitFor(t, "the stored events", func() bool { return s.has(relaytest.URL(r), stored...) })
	if c.Connected() != 1 {
		t.Errorf("Connected: got %d, want 1", c.Connected())
	}
	live := []*nostr.Event{relaytest.Move(t, key, challenge.ID, 2, now), relaytest.Move(t, key, challenge.ID, 3, now+1)}
	relaytest.Seed(t, r, live...)
	waitFor(t, "the live events", func() bool { return s.has(relaytest.URL(r), live...) })
	if s.has(relaytest.URL(r), offTopic) || s.has(relaytest.URL(r), oldReferee) {
		t.Error("delivered an event outside the subscription (other topic, or kind 4423)")
	}
	got, _ := s.get(relaytest.URL(r), challenge.ID)
	if string(nostr.MarshalEvent(got.Event)) != string(nostr.MarshalEvent(challenge)) {
		t.Errorf("got %s, want %s", nostr.MarshalEvent(got.Event), nostr.MarshalEvent(challenge))
	}
}

func TestBackfillPaging(t *testing.T) {
	tests := []struct {
		name    string
		opts    relayd.Options
		perSec  int // events per second of created_at
		seconds int
	}{
		{"cap advertised", relayd.Options{MaxLimit: 5}, 1, 40},
		{"cap hidden", relayd.Options{MaxLimit: 5, HideLimits: true}, 1, 40},
		{"same-second runs", relayd.Options{MaxLimit: 5, HideLimits: true}, 4, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := relaytest.StartRelay(t, tt.opts)
			key := nostr.GenerateKey()
			base := time.Now().Unix() - 1000
			var evs []*nostr.Event
			for sec := range tt.seconds {
				for i := range tt.perSec {
					evs = append(evs, relaytest.Move(t, key, fmt.Sprintf("match-%d", i), sec+1, base+int64(sec)))
				}
			}
			relaytest.Seed(t, r, evs...)
			_, s := run(t, fastConfig(r.URL()))
			waitFor(t, "every event", func() bool { return s.has(relaytest.URL(r), evs...) })
			if n := s.count(relaytest.URL(r)); n != len(evs) {
				t.Errorf("got %d distinct events, want %d", n, len(evs))
			}
			if q := r.Queries(); q < int64(len(evs)/5) {
				t.Errorf("relay served %d queries: the client cannot have paged", q)
			}
		})
	}
}

func TestReconnectBackfillsGap(t *testing.T) {
	tests := []struct {
		name  string
		fault func(r *relayd.Relay, gap func())
	}{
		{"connections dropped", func(r *relayd.Relay, gap func()) {
			r.DropConnections()
			gap()
		}},
		{"relay down and back", func(r *relayd.Relay, gap func()) {
			r.Stop()
			gap()
			if err := r.Restart(); err != nil {
				panic(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 5})
			key := nostr.GenerateKey()
			now := time.Now().Unix()
			before := []*nostr.Event{relaytest.Move(t, key, "m", 1, now-5), relaytest.Move(t, key, "m", 2, now-4)}
			relaytest.Seed(t, r, before...)
			c, s := run(t, fastConfig(r.URL()))
			waitFor(t, "the first events", func() bool { return s.has(relaytest.URL(r), before...) })

			var gap []*nostr.Event
			for i := range 12 {
				gap = append(gap, relaytest.Move(t, key, "m", 3+i, now-3+int64(i%3)))
			}
			tt.fault(r, func() { relaytest.Seed(t, r, gap...) })
			waitFor(t, "the events of the gap", func() bool { return s.has(relaytest.URL(r), gap...) })
			waitFor(t, "the client to be connected", func() bool { return c.Connected() == 1 })
			after := relaytest.Move(t, key, "m", 99, now)
			relaytest.Seed(t, r, after)
			waitFor(t, "a live event after the reconnect", func() bool { return s.has(relaytest.URL(r), after) })
		})
	}
}

func TestDeadRelayDoesNotStall(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	ev := relaytest.Move(t, key, "m", 1, time.Now().Unix())
	relaytest.Seed(t, r, ev)
	c, s := run(t, fastConfig(testkit.DeadRelay(t), r.URL(), testkit.DeadRelay(t)))
	waitFor(t, "the event from the live relay", func() bool { return s.has(relaytest.URL(r), ev) })
	live := relaytest.Move(t, key, "m", 2, time.Now().Unix())
	relaytest.Seed(t, r, live)
	waitFor(t, "a live event", func() bool { return s.has(relaytest.URL(r), live) })
	if n := c.Connected(); n != 1 {
		t.Errorf("Connected: got %d, want 1", n)
	}
}

func TestForgedEventsRejected(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	ply := 10
	forge := func(mutate func(*nostr.Event)) *nostr.Event {
		ply++ // every forgery a distinct event
		ev := relaytest.Move(t, key, "m", ply, now)
		mutate(ev)
		return ev
	}
	badSigs := func() []*nostr.Event {
		return []*nostr.Event{
			forge(func(ev *nostr.Event) { ev.Sig = strings.Repeat("0", 128) }),
			forge(func(ev *nostr.Event) { ev.Sig = relaytest.Move(t, nostr.GenerateKey(), "m", 1, now).Sig }),
		}
	}
	badIDs := func() []*nostr.Event {
		return []*nostr.Event{
			forge(func(ev *nostr.Event) { ev.Content = "e7e5" }),
			forge(func(ev *nostr.Event) { ev.ID = strings.Repeat(fmt.Sprintf("%02x", ply), 32) }),
		}
	}
	inject := func(evs []*nostr.Event) {
		for _, ev := range evs {
			if err := r.Inject(t.Context(), ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	storedSigs, storedIDs := badSigs(), badIDs()
	inject(storedSigs)
	inject(storedIDs)
	good := relaytest.Move(t, key, "m", 2, now)
	relaytest.Seed(t, r, good)

	cfg := fastConfig(r.URL())
	cursors := NewMemCursors()
	cfg.Cursors = cursors
	_, s := run(t, cfg)
	waitFor(t, "the good event", func() bool { return s.has(relaytest.URL(r), good) })
	// The cursor moves once the backfill is over. A refused event may be
	// counted more than once by then: a page shortened by refused events is
	// not taken for the last one, so the next page asks for its second again.
	waitFor(t, "the end of the backfill", func() bool {
		c, _ := cursors.Cursor(t.Context(), relaytest.URL(r))
		return c > 0
	})
	sigs0, ids0 := s.rejected(wire.RejectBadSignature), s.rejected(wire.RejectBadID)
	if sigs0 < 2 || ids0 < 2 {
		t.Fatalf("backfill rejections: %d bad signatures, %d bad ids; want at least 2 each", sigs0, ids0)
	}
	inject(badSigs())
	inject(badIDs())
	waitFor(t, "the live rejections", func() bool {
		return s.rejected(wire.RejectBadSignature) == sigs0+2 && s.rejected(wire.RejectBadID) == ids0+2
	})
	for _, ev := range append(storedSigs, storedIDs...) {
		if s.has(relaytest.URL(r), ev) {
			t.Errorf("forged event %s delivered", ev.ID)
		}
	}
	if n := s.count(relaytest.URL(r)); n != 1 {
		t.Errorf("delivered %d events, want only the good one", n)
	}
}

// An event over the size cap is delivered whole (PROTOCOL.md section 1:
// the fold ignores it, so it must see it).
func TestTooLargeDelivered(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	big := relaytest.Sign(t, key, nostr.NewMove("m", 1, strings.Repeat("x", nostr.MaxEventSize), time.Now().Unix()))
	small := relaytest.Move(t, key, "m", 2, time.Now().Unix())
	relaytest.Seed(t, r, big, small)
	_, s := run(t, fastConfig(r.URL()))
	waitFor(t, "both events", func() bool { return s.has(relaytest.URL(r), big, small) })
	if got, _ := s.get(relaytest.URL(r), big.ID); got.Event.Content != big.Content || !nostr.TooLarge(got.Event) {
		t.Errorf("oversized event delivered with %d bytes of content, want %d", len(got.Event.Content), len(big.Content))
	}
}

func TestWatchAuthors(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	alice, bob := nostr.GenerateKey(), nostr.GenerateKey()
	now := time.Now().Unix()
	oldProfile := relaytest.Sign(t, alice, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: gn.Timestamp(now - 100000), Content: `{"name":"alice"}`})
	bobProfile := relaytest.Sign(t, bob, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: gn.Timestamp(now - 10), Content: `{"name":"bob"}`})
	relaytest.Seed(t, r, oldProfile, bobProfile)
	cfg := fastConfig(r.URL())
	cursors := NewMemCursors()
	cursors.SetCursor(t.Context(), relaytest.URL(r), now) // a client that has run before
	cfg.Cursors = cursors
	c, s := run(t, cfg)
	ev := relaytest.Move(t, alice, "m", 1, now)
	relaytest.Seed(t, r, ev)
	waitFor(t, "a game event", func() bool { return s.has(relaytest.URL(r), ev) })
	if s.has(relaytest.URL(r), oldProfile) {
		t.Fatal("profile delivered before its author was watched")
	}
	c.WatchAuthors(alice.PublicKey(), "not a pubkey")
	waitFor(t, "the watched author's old profile", func() bool { return s.has(relaytest.URL(r), oldProfile) })
	newProfile := relaytest.Sign(t, alice, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: gn.Timestamp(now + 1), Content: `{"name":"alice2"}`})
	relaytest.Seed(t, r, newProfile)
	waitFor(t, "the profile update, live", func() bool { return s.has(relaytest.URL(r), newProfile) })
	if s.has(relaytest.URL(r), bobProfile) {
		t.Error("unwatched author's profile delivered")
	}
}

func TestAuthOnRequest(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{RequireAuth: true})
	key := nostr.GenerateKey()
	ev := relaytest.Move(t, key, "m", 1, time.Now().Unix())
	relaytest.Seed(t, r, ev)
	cfg := fastConfig(r.URL())
	cfg.Key = nostr.GenerateKey()
	_, s := run(t, cfg)
	waitFor(t, "the event behind AUTH", func() bool { return s.has(relaytest.URL(r), ev) })
}

func TestCursorAdvances(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	cursors := NewMemCursors()
	cfg := fastConfig(r.URL())
	cfg.Cursors = cursors
	start := time.Now().Unix()
	run(t, cfg)
	waitFor(t, "a cursor", func() bool {
		v, _ := cursors.Cursor(context.Background(), relaytest.URL(r))
		return v >= start
	})
}

func TestBackfillStartsAtCursor(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	old := relaytest.Move(t, key, "m", 1, now-3600)
	recent := relaytest.Move(t, key, "m", 2, now-30)
	relaytest.Seed(t, r, old, recent)
	cursors := NewMemCursors()
	cursors.SetCursor(t.Context(), relaytest.URL(r), now)
	cfg := fastConfig(r.URL())
	cfg.Cursors = cursors
	cfg.SafetyMargin = time.Minute
	_, s := run(t, cfg)
	waitFor(t, "the event inside the margin", func() bool { return s.has(relaytest.URL(r), recent) })
	if s.has(relaytest.URL(r), old) {
		t.Error("backfill went past cursor - margin")
	}
}

func TestCursorWaitsForConsumer(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	for i := range 5 {
		relaytest.Seed(t, r, relaytest.Move(t, key, "m", i+1, now-int64(i)))
	}
	cursors := NewMemCursors()
	cfg := fastConfig(r.URL())
	cfg.Cursors = cursors
	c := New(cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan Received, 10) // nobody reads it yet
	go c.Run(ctx, out)
	waitFor(t, "the backfill to fill the buffer", func() bool { return len(out) == 5 })
	// Pings go on; the cursor must stay while the events sit in the buffer.
	deadline := time.Now().Add(3 * cfg.PingInterval)
	for time.Now().Before(deadline) {
		if v, _ := cursors.Cursor(ctx, relaytest.URL(r)); v != 0 {
			t.Fatalf("cursor moved to %d with 5 events not yet taken", v)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for range 5 {
		<-out
	}
	waitFor(t, "the cursor once the buffer is drained", func() bool {
		v, _ := cursors.Cursor(ctx, relaytest.URL(r))
		return v >= now
	})
}

func TestSlowConsumerDoesNotTimeOutBackfill(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var evs []*nostr.Event
	for i := range 20 {
		evs = append(evs, relaytest.Move(t, key, "m", i+1, now-int64(i)))
	}
	relaytest.Seed(t, r, evs...)
	cfg := fastConfig(r.URL())
	// Long enough for any loaded host to serve a page of 20 events, and
	// the consumer then keeps the client waiting more than twice that,
	// with the page's EOSE queued behind the events it has not taken.
	cfg.QueryTimeout = testkit.Scale(2 * time.Second)
	c := New(cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan Received)
	go c.Run(ctx, out)
	got := map[string]bool{}
	for len(got) < len(evs) {
		select {
		case rec := <-out:
			got[rec.Event.ID] = true
			if len(got) == 1 {
				time.Sleep(5 * cfg.QueryTimeout / 2) // the consumer's work, not synchronisation
			}
		case <-time.After(testkit.Scale(30 * time.Second)):
			t.Fatalf("got %d of %d events", len(got), len(evs))
		}
	}
	if n := r.Queries(); n > 4 {
		t.Errorf("%d stored-event queries: the backfill restarted", n)
	}
}

func TestWatchedProfilesIgnoreCursor(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	alice := nostr.GenerateKey()
	now := time.Now().Unix()
	profile := relaytest.Sign(t, alice, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: gn.Timestamp(now - 100000), Content: `{"name":"alice"}`})
	oldMove := relaytest.Move(t, alice, "m", 1, now-100000)
	relaytest.Seed(t, r, profile, oldMove)
	cfg := fastConfig(r.URL())
	cfg.Cursors = NewMemCursors()
	cfg.Cursors.SetCursor(t.Context(), relaytest.URL(r), now)
	c := New(cfg)
	c.WatchAuthors(alice.PublicKey())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan Received)
	go c.Run(ctx, out)
	select {
	case rec := <-out:
		if rec.Event.ID != profile.ID {
			t.Fatalf("got %s, want the profile (the old move is before the cursor)", rec.Event.ID)
		}
	case <-time.After(testkit.Scale(10 * time.Second)):
		t.Fatal("no profile")
	}
}

// TestReadyAfterFirstBackfill: Ready closes only once every event a relay
// held has been handed over (here, through pages of five), and a relay
// that is down does not hold it back.
func TestReadyAfterFirstBackfill(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 5, HideLimits: true})
	key := nostr.GenerateKey()
	base := time.Now().Unix() - 1000
	var evs []*nostr.Event
	for i := range 40 {
		evs = append(evs, relaytest.Move(t, key, "m", i+1, base+int64(i)))
	}
	relaytest.Seed(t, r, evs...)
	c := New(fastConfig(r.URL(), testkit.DeadRelay(t)))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan Received) // unbuffered: a send completes only when this test has the event
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, out) }()
	got := map[string]bool{}
	deadline := time.After(testkit.Scale(20 * time.Second))
wait:
	for {
		select {
		case rc := <-out:
			got[rc.Event.ID] = true
		case <-c.Ready():
			break wait
		case <-deadline:
			t.Fatalf("Ready did not close; %d of %d events received", len(got), len(evs))
		}
	}
	if len(got) != len(evs) {
		t.Errorf("Ready closed with %d of the %d stored events handed over", len(got), len(evs))
	}
	cancel()
	go func() {
		for range out { // let the sessions finish sending
		}
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestCursorMarksFollowTheirEvents: with MarkCursors the client writes no
// cursor itself; it sends a mark on out behind every event of the backfill,
// for the consumer to save once those are stored.
func TestCursorMarksFollowTheirEvents(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 3})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var evs []*nostr.Event
	for i := range 10 {
		evs = append(evs, relaytest.Move(t, key, "m", i+1, now-int64(20-i)))
	}
	relaytest.Seed(t, r, evs...)
	cursors := NewMemCursors()
	cfg := fastConfig(r.URL())
	cfg.Cursors, cfg.MarkCursors = cursors, true
	c := New(cfg)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	out := make(chan Received, 100)
	go c.Run(ctx, out)
	got := 0
	deadline := time.After(testkit.Scale(20 * time.Second))
	for {
		var rc Received
		select {
		case rc = <-out:
		case <-deadline:
			t.Fatalf("no cursor mark after %d events", got)
		}
		if rc.Event != nil {
			got++
			continue
		}
		if rc.Cursor == 0 && rc.Backfill != nil {
			continue // backfill progress, behind the events of its page
		}
		if got != len(evs) || rc.Relay != relaytest.URL(r) || rc.Cursor < now {
			t.Fatalf("mark %+v after %d of %d events, want one for %s at or after %d", rc, got, len(evs), relaytest.URL(r), now)
		}
		break
	}
	if v, _ := cursors.Cursor(ctx, relaytest.URL(r)); v != 0 {
		t.Errorf("the client wrote cursor %d itself", v)
	}
}
