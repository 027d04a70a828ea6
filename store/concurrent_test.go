package store

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// Readers never fail or see the store go backwards while a writer commits
// batches: both the writer's own read pool and a second Store on the same
// file, which locks the way another process does.
func TestReadersWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rw.db")
	w, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	other, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	k := nostr.GenerateKey()
	ch := signed(t, k, nostr.NewChallenge(nostr.GameGomoku, "", 1))
	const batches, per = 20, 5
	var evs []*nostr.Event
	for i := range batches * per {
		evs = append(evs, signed(t, k, nostr.NewMove(ch.ID, i+1, "h8", int64(i+2))))
	}
	if _, err := w.PutEvent(t.Context(), ch, nil, "wss://r", 1); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(20*time.Second))
	defer cancel()
	done := make(chan struct{})
	// Each reader reads once before the writer starts, and says so: the
	// reads then overlap the writes without assuming when a goroutine is
	// scheduled (on a loaded host a reader may not run for a while).
	ready := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, rs := range []*Store{w, other} {
		wg.Go(func() {
			started := sync.OnceFunc(func() { ready <- struct{}{} })
			defer started()
			last := 0
			for {
				got, err := rs.MatchEvents(ctx, ch.ID)
				if err != nil {
					t.Errorf("reader: %v", err)
					return
				}
				if len(got) < last {
					t.Errorf("reader saw %d events after %d", len(got), last)
				}
				if len(got)%per != 1 {
					t.Errorf("reader saw %d events: part of a batch", len(got))
				}
				if _, err := rs.Summaries(ctx); err != nil {
					t.Errorf("reader: %v", err)
				}
				last = len(got)
				started()
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	<-ready
	<-ready
	for b := range batches {
		batch := make([]Incoming, per)
		for j := range batch {
			batch[j] = Incoming{Event: evs[b*per+j], Relay: "wss://r", SeenAt: int64(b)}
		}
		if _, err := w.PutEvents(ctx, batch); err != nil {
			t.Fatal(err)
		}
		if err := w.PutSummary(ctx, Summary{Match: ch.ID, JSON: []byte(`{}`), UpdatedAt: int64(b)}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	got, err := other.MatchEvents(ctx, ch.ID)
	if err != nil || len(got) != 1+batches*per {
		t.Errorf("after the writes: %d events, %v; want %d", len(got), err, 1+batches*per)
	}
}

// Two writers on one file (a daemon and, say, an import) wait for each
// other through the busy timeout rather than failing with SQLITE_BUSY.
func TestTwoWritersShareTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ww.db")
	var stores [2]*Store
	for i := range stores {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	k := nostr.GenerateKey()
	const n = 40
	var wg sync.WaitGroup
	for i, s := range stores {
		evs := make([]*nostr.Event, n)
		for j := range evs {
			evs[j] = signed(t, k, nostr.NewChallenge(nostr.GameChess, "", int64(i*n+j)))
		}
		wg.Go(func() {
			for _, ev := range evs {
				if _, err := s.PutEvent(t.Context(), ev, nil, "wss://r", 1); err != nil {
					t.Error(err)
					return
				}
				if err := s.SetCursor(t.Context(), "wss://r", int64(ev.CreatedAt)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if events, matches, err := stores[0].Stats(t.Context()); err != nil || events != 2*n || matches != 2*n {
		t.Errorf("Stats = %d, %d, %v; want %d each", events, matches, err, 2*n)
	}
	if c, _ := stores[1].Cursor(t.Context(), "wss://r"); c != 2*n-1 {
		t.Errorf("cursor = %d, want %d", c, 2*n-1)
	}
}
