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
	r, s, final, mine := cappedSeason(t, testrelay.KhatruOptions{})
	me := s.Keys[0]
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
	r, s, final, _ := cappedSeason(t, testrelay.KhatruOptions{RefusePaged: 5})
	me := s.Keys[0]
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

// cappedSeason stores a 50-match season of three keys on a khatru relay
// (stock store: every query capped at 500) and returns the relay, the
// first key and its matches the reference folds as final, with every
// event seen now as the seat stamps what it reads.
func cappedSeason(t *testing.T, o testrelay.KhatruOptions) (*testrelay.KhatruRelay, *sim.Season, []string, int) {
	t.Helper()
	end := time.Now().Unix() - 3600
	s, err := sim.Generate(sim.Config{Seed: 34, Agents: 3, Matches: 50, Days: 5, End: end})
	if err != nil {
		t.Fatal(err)
	}
	evs := s.Events()
	r := testrelay.Khatru(t, o)
	limits.Forget(r.URL)
	if err := r.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	me := s.Keys[0].PublicKey()
	seen := map[string]int64{}
	for _, ev := range evs {
		seen[ev.ID] = time.Now().Unix()
	}
	ref := sim.Reference(evs, seen)
	var final []string
	mine := 0
	for _, m := range s.Matches {
		st := ref[m.ID]
		if st == nil || st.Role(me) == "" {
			continue
		}
		mine += len(m.Events)
		if st.Final {
			final = append(final, m.ID)
		}
	}
	return r, s, final, mine
}
