package reconcile

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/relayd"
)

// TestSyncNIP77Windows: with Options.Windows the reconciliation runs
// window by window, never reading the whole local set (Local), and finds
// every missing event wherever its created_at falls: before the first
// window's stored events, between windows, and after the last.
func TestSyncNIP77Windows(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	a, b, c := relaytest.OldMatch(t, key, 12), relaytest.OldMatch(t, key, 12), relaytest.OldMatch(t, key, 12)
	for _, m := range [][]*nostr.Event{a, b, c} {
		relaytest.Seed(t, r, m...)
	}
	// The store has the middle of each match: the relay's extra events
	// sit in every window and outside the stored range at both ends.
	l := newMemLocal(append(append(slices.Clone(a[3:9]), b[3:9]...), c[3:9]...)...)
	opts := l.options(r.URL())
	local := opts.Local
	opts.Local = func(context.Context, []int) ([]Item, error) {
		t.Error("the whole local set was read")
		return nil, nil
	}
	// Three windows, one per match (oldMatch spaces them 1000 s apart).
	bound := func(m []*nostr.Event) int64 { return int64(m[0].CreatedAt) - 1 }
	windows := []Window{{Until: bound(b)}, {Since: bound(b) + 1, Until: bound(c)}, {Since: bound(c) + 1}}
	var reads atomic.Int64
	opts.Windows = func(context.Context, []int) ([]Window, error) { return windows, nil }
	opts.LocalIn = func(ctx context.Context, kinds []int, w Window) ([]Item, error) {
		reads.Add(1)
		all, err := local(ctx, kinds)
		var in []Item
		for _, it := range all {
			if (w.Since == 0 || it.CreatedAt >= w.Since) && (w.Until == 0 || it.CreatedAt <= w.Until) {
				in = append(in, it)
			}
		}
		return in, err
	}
	stats, got := syncInto(t, opts)
	var want []*nostr.Event
	for _, m := range [][]*nostr.Event{a, b, c} {
		want = append(append(want, m[:3]...), m[9:]...)
	}
	if g, w := ids(got[relaytest.URL(r)]), relaytest.IDs(want); !slices.Equal(g, w) {
		t.Fatalf("fetched %d events, want the %d missing ones", len(g), len(w))
	}
	if st := stats[0]; st.Method != "nip77" || st.Compared != 18 || st.Missing != 0 || st.Error != "" {
		t.Fatalf("stats %+v, want nip77 comparing 18", st)
	}
	if reads.Load() < int64(len(windows)) {
		t.Errorf("LocalIn read %d windows, want %d per filter", reads.Load(), len(windows))
	}
}
