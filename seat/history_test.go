package seat

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"vesper/internal/sim"
	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr/relay/limits"
)

// TestEventsHistoryPastRelayCap is issue 34, item 3: a key with some
// 2,000 match events in its last week, on khatru's stock store (every
// query capped at 500). The stream reads each match's history by paged
// REQs, so every finished game folds as final: followed, each emits
// "final" and nothing else; not followed, none emits anything (a runner
// restarted then runs no decider for them). Without the paged read the
// subscription's newest 500 events are all the early games get, and they
// fold as live.
func TestEventsHistoryPastRelayCap(t *testing.T) {
	end := time.Now().Unix() - 3600
	s, err := sim.Generate(sim.Config{Seed: 34, Agents: 3, Matches: 50, Days: 5, End: end})
	if err != nil {
		t.Fatal(err)
	}
	evs := s.Events()
	r := testrelay.Khatru(t, testrelay.KhatruOptions{})
	limits.Forget(r.URL)
	if err := r.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	me := s.Keys[0]
	// The seat stamps what it reads with its own receipt time (a
	// week-old move read now is late), so the reference folds with that.
	seen := map[string]int64{}
	for _, ev := range evs {
		seen[ev.ID] = time.Now().Unix()
	}
	ref := sim.Reference(evs, seen)
	var final []string
	mine := 0
	for _, m := range s.Matches {
		st := ref[m.ID]
		if st == nil || (st.Role(me.PublicKey()) == "") {
			continue
		}
		mine += len(m.Events)
		if st.Final {
			final = append(final, m.ID)
		}
	}
	if mine < 2000 || len(final) < 10 {
		t.Fatalf("the key has %d events and %d final matches: too few for the cap to bite", mine, len(final))
	}
	t.Logf("the key has %d events in %d final matches", mine, len(final))
	run := func(follow []string) map[string][]string {
		seat := &Seat{Relays: []string{r.URL}, Key: me, Timeout: testkit.Scale(10 * time.Second)}
		ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(120*time.Second))
		defer cancel()
		var mu sync.Mutex
		got := map[string][]string{}
		err := seat.Events(ctx, StreamOptions{Follow: follow, Ready: cancel}, func(ev StreamEvent) {
			mu.Lock()
			got[ev.Match] = append(got[ev.Match], ev.Type)
			mu.Unlock()
		})
		if ctx.Err() == context.DeadlineExceeded {
			t.Fatalf("the stream was never ready: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		return got
	}
	got := run(final)
	for _, id := range final {
		if !slices.Equal(got[id], []string{EventFinal}) {
			t.Errorf("followed final match %s emitted %v, want [final]", id[:8], got[id])
		}
	}
	got = run(nil)
	for _, id := range final {
		if len(got[id]) > 0 {
			t.Errorf("final match %s emitted %v, want nothing", id[:8], got[id])
		}
	}
}

// TestHistoryReadAgainAfterARefusal: the relay closes the first paged
// reads of the key's history ("error:", a relay short of time), so the
// first read is not whole. The stream neither folds those matches from
// the live subscription's newest events nor leaves them unread: it reads
// them again, and every followed final match emits "final". With the
// retries and the re-read gone (one try, no resubscription) the matches
// stay held and emit nothing; with the hold gone too they emit from a
// partial history.
func TestHistoryReadAgainAfterARefusal(t *testing.T) {
	end := time.Now().Unix() - 3600
	s, err := sim.Generate(sim.Config{Seed: 34, Agents: 3, Matches: 50, Days: 5, End: end})
	if err != nil {
		t.Fatal(err)
	}
	evs := s.Events()
	r := testrelay.Khatru(t, testrelay.KhatruOptions{RefusePaged: 5})
	limits.Forget(r.URL)
	if err := r.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	me := s.Keys[0]
	seen := map[string]int64{}
	for _, ev := range evs {
		seen[ev.ID] = time.Now().Unix()
	}
	ref := sim.Reference(evs, seen)
	var final []string
	for _, m := range s.Matches {
		if st := ref[m.ID]; st != nil && st.Role(me.PublicKey()) != "" && st.Final {
			final = append(final, m.ID)
		}
	}
	seat := &Seat{Relays: []string{r.URL}, Key: me, Timeout: testkit.Scale(10 * time.Second)}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(120*time.Second))
	defer cancel()
	var mu sync.Mutex
	got := map[string][]string{}
	done := 0
	_ = seat.Events(ctx, StreamOptions{Follow: final}, func(ev StreamEvent) {
		mu.Lock()
		defer mu.Unlock()
		got[ev.Match] = append(got[ev.Match], ev.Type)
		if slices.Contains(final, ev.Match) && ev.Type == EventFinal {
			done++
			if done == len(final) {
				cancel()
			}
		}
	})
	mu.Lock()
	defer mu.Unlock()
	for _, id := range final {
		if !slices.Equal(got[id], []string{EventFinal}) {
			t.Errorf("followed final match %s emitted %v, want [final]", id[:8], got[id])
		}
	}
}
