package reconcile

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/sim"
	"vesper/internal/testrelay"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/limits"
)

// seasonEnd is the present of the seasons below: months ago, so that a
// cursor-based backfill would never ask for any of it again.
var seasonEnd = time.Now().Add(-60 * 24 * time.Hour).Unix()

// season generates matches [from, from+n) of one seeded season (each match
// has its own random stream, so a later part is the same matches as in a
// whole season), stamped before seasonEnd.
func season(t *testing.T, from, n int) []*nostr.Event {
	t.Helper()
	s, err := sim.Generate(sim.Config{Seed: 24, Agents: 12, From: from, Matches: n, End: seasonEnd})
	if err != nil {
		t.Fatal(err)
	}
	return s.Events()
}

// followed are the events a verifier follows (the sync's filters): the
// relays' union as `vesper verify` would be given it.
func followed(evs []*nostr.Event) []*nostr.Event {
	var out []*nostr.Event
	for _, ev := range evs {
		if slices.ContainsFunc(syncFilters(), func(f gn.Filter) bool { return f.Matches(ev) }) {
			out = append(out, ev)
		}
	}
	return out
}

// startKhatru starts a testrelay khatru relay and forgets any NIP-11 document
// cached for its port.
func startKhatru(t *testing.T, o testrelay.KhatruOptions) *testrelay.KhatruRelay {
	t.Helper()
	r := testrelay.Khatru(t, o)
	limits.Forget(r.URL)
	return r
}

// syncStore runs Sync into l and adds what it sent, failing on an event
// sent twice or one that was already stored.
func syncStore(t *testing.T, l *memLocal, opts Options) Stats {
	t.Helper()
	stats, got := syncInto(t, opts)
	for _, rs := range got {
		for _, r := range rs {
			if l.evs[r.Event.ID] != nil {
				t.Fatalf("event %s sent twice (or already stored)", r.Event.ID)
			}
			l.evs[r.Event.ID] = r.Event
		}
	}
	return stats[0]
}

// statLine is st without its list of revealed matches.
func statLine(st Stats) string {
	return fmt.Sprintf("%s: %s, compared %d, fetched %d, refused %d, missing %d, %d splits, %d paged, %d rounds, %d bytes, err %q, nip77 err %q",
		st.Relay, st.Method, st.Compared, st.Fetched, st.Refused, st.Missing, st.Splits, st.Paged, st.Rounds, st.Bytes, st.Error, st.NegError)
}

// checkUnion asserts that the store holds exactly the followed events of
// union and that every match folds to the summary that the fold of union
// gives (what `vesper verify` computes from the relays' events).
func checkUnion(t *testing.T, l *memLocal, union []*nostr.Event) {
	t.Helper()
	want := followed(union)
	var stored []*nostr.Event
	for _, ev := range l.evs {
		stored = append(stored, ev)
	}
	if g, w := relaytest.IDs(stored), relaytest.IDs(want); !slices.Equal(g, w) {
		t.Fatalf("the store holds %d events, want the relays' %d", len(g), len(w))
	}
	ref, got := sim.Reference(want, nil), sim.Reference(stored, nil)
	wrong := 0
	for id, s := range ref {
		g := got[id]
		if g == nil || string(match.MarshalLine(g.Summary(seasonEnd))) != string(match.MarshalLine(s.Summary(seasonEnd))) {
			wrong++
		}
	}
	if wrong > 0 || len(got) != len(ref) {
		t.Fatalf("%d of %d matches differ from verify's (%d folded)", wrong, len(ref), len(got))
	}
}

// TestSyncNIP77CappedKhatru is issue 24: khatru on its stock stores caps
// every query, NIP-77 sessions included (slicestore at its default 500;
// lmdb at the MaxLimit an operator sets), and announces a max_limit of 20
// that it does not enforce. A 40-match season synced into an empty store,
// then, after downtime, more matches backdated into the season: every
// event is stored once and every match folds as verify folds the relay's
// events. Without the split check the first sync stores about the newest
// 500 events (the relay's cut set, reported as whole).
func TestSyncNIP77CappedKhatru(t *testing.T) {
	for _, variant := range []string{"slice", "lmdb", "slice-windows"} {
		t.Run(variant, func(t *testing.T) {
			store, windowed := strings.CutSuffix(variant, "-windows")
			o := testrelay.KhatruOptions{Store: store, MaxLimit: 20}
			if store == "lmdb" {
				o.StoreMaxLimit = 500
			}
			r := startKhatru(t, o)
			first := season(t, 0, 40)
			if err := r.Store(t.Context(), first...); err != nil {
				t.Fatal(err)
			}
			if n := len(followed(first)); n < 1000 {
				t.Fatalf("the season has %d events: too few to be cut at 500", n)
			}
			l := newMemLocal()
			options := func() Options {
				opts := l.options(r.URL)
				if windowed {
					// As the daemon reads its store: windows of about 700
					// stored events, each window's items read alone.
					windowsOf(&opts, 700)
				}
				return opts
			}
			st := syncStore(t, l, options())
			t.Logf("first sync: %s", statLine(st))
			// lmdb v0.16.2 answers a REQ that lists ids with those events
			// whatever the rest of the filter says ("when there are ids we
			// ignore everything else"): the pager's check for an older page
			// (until the oldest second) gets the newer ones again, and the
			// gate refuses them as unrequested (counted, not stored).
			refusedOK := store == "lmdb" || st.Refused == 0
			if st.Method != "nip77" || st.Splits == 0 || st.Error != "" || st.Missing != 0 || !refusedOK {
				t.Fatalf("first sync: %s, want nip77 with splits", statLine(st))
			}
			checkUnion(t, l, first)

			// Downtime: whole matches stamped inside the season reach the
			// relay.
			late := season(t, 40, 12)
			if err := r.Store(t.Context(), late...); err != nil {
				t.Fatal(err)
			}
			st = syncStore(t, l, options())
			t.Logf("after downtime: %s", statLine(st))
			refusedOK = store == "lmdb" || st.Refused == 0
			if st.Method != "nip77" || st.Fetched != len(followed(late)) || st.Error != "" || st.Missing != 0 || !refusedOK {
				t.Fatalf("after downtime: %s, want nip77 fetching the %d late events", statLine(st), len(followed(late)))
			}
			checkUnion(t, l, append(first, late...))
		})
	}
}

// windowsOf makes opts reconcile in windows of about size stored events
// each (consecutive, covering every created_at, whole seconds), reading
// each window's items with LocalIn, as the daemon does with its store.
func windowsOf(opts *Options, size int) {
	local := opts.Local
	opts.Windows = func(ctx context.Context, kinds []int) ([]Window, error) {
		items, err := local(ctx, kinds)
		slices.SortFunc(items, func(a, b Item) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
		var out []Window
		cur := Window{}
		for i := size; i < len(items); i += size {
			if t := items[i].CreatedAt; t > cur.Since && t > items[i-1].CreatedAt {
				cur.Until = t - 1
				out = append(out, cur)
				cur = Window{Since: t}
			}
		}
		return append(out, cur), err
	}
	opts.LocalIn = func(ctx context.Context, kinds []int, w Window) ([]Item, error) {
		all, err := local(ctx, kinds)
		var in []Item
		for _, it := range all {
			if (w.Since == 0 || it.CreatedAt >= w.Since) && (w.Until == 0 || it.CreatedAt <= w.Until) {
				in = append(in, it)
			}
		}
		return in, err
	}
	opts.Local = nil
}

// TestSyncNIP77TooMany: a relay that refuses a large set with strfry's
// NEG-ERR "blocked: too many query results" (maxSyncEvents) is reconciled
// window by window, not paged whole by the fallback.
func TestSyncNIP77TooMany(t *testing.T) {
	r := startKhatru(t, testrelay.KhatruOptions{StoreMaxLimit: 1 << 20, TooMany: 300})
	evs := season(t, 0, 40)
	if err := r.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	l := newMemLocal()
	st := syncStore(t, l, l.options(r.URL))
	if st.Method != "nip77" || st.NegError != "" || st.Splits == 0 || st.Paged != 0 || st.Error != "" {
		t.Fatalf("stats %s, want nip77 with splits and nothing paged", statLine(st))
	}
	if r.TooManyRefusals() == 0 {
		t.Fatal("the relay never said too many: the test proves nothing")
	}
	checkUnion(t, l, evs)
	// Reconciled again in step, the windows that were refused are split
	// again and nothing is fetched: the only REQs are the NIP-77 check's,
	// at most 1,000 events of each game filter in pages of 500, with the
	// page that proves the end.
	q := r.Queries()
	st = syncStore(t, l, l.options(r.URL))
	if st.Method != "nip77" || st.Fetched != 0 || st.Splits == 0 || r.Queries()-q > int64(2*(calibrationEvents/500+2)) {
		t.Fatalf("second sync: %s, %d REQs, want nip77 with no fetch", statLine(st), r.Queries()-q)
	}
}

// TestSyncNIP77OneSecondPaged: a second holding more events than the
// relay reconciles is not halved for ever: a relay that says "too many"
// for a window that small (an hour or less, tooManyFloor) is read by
// paged REQs instead, and every event of the second is stored.
func TestSyncNIP77OneSecondPaged(t *testing.T) {
	r := startKhatru(t, testrelay.KhatruOptions{StoreMaxLimit: 1 << 20, TooMany: 5})
	key := nostr.GenerateKey()
	t0 := seasonEnd
	ch := relaytest.Sign(t, key, nostr.NewChallenge("chess", "", t0))
	evs := []*nostr.Event{ch}
	for i := 1; i <= 12; i++ {
		evs = append(evs, relaytest.Move(t, key, ch.ID, i, t0+1)) // twelve in one second
	}
	for i := 13; i <= 15; i++ {
		evs = append(evs, relaytest.Move(t, key, ch.ID, i, t0+int64(i)))
	}
	if err := r.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	l := newMemLocal()
	st := syncStore(t, l, l.options(r.URL))
	if st.Method != "fallback" || !strings.Contains(st.NegError, errTooManySmall.Error()) || st.Error != "" {
		t.Fatalf("stats %s, want the relay paged", statLine(st))
	}
	if g, w := relaytest.IDs(slices.Collect(func(yield func(*nostr.Event) bool) {
		for _, ev := range l.evs {
			if !yield(ev) {
				return
			}
		}
	})), relaytest.IDs(evs); !slices.Equal(g, w) {
		t.Fatalf("stored %d events, want %d", len(g), len(w))
	}
}

// TestSpanHalves: the halves of a window cover it exactly, without gap or
// overlap, open ends staying open; a second is not halved.
func TestSpanHalves(t *testing.T) {
	for _, w := range []Window{{}, {Since: 1_700_000_000}, {Until: 1_700_000_000}, {Since: 10, Until: 11}, {Since: 1 << 33}} {
		t.Run(fmt.Sprint(w), func(t *testing.T) {
			s := spanOf(w)
			lo, hi, ok := s.halves(nil)
			if !ok {
				t.Fatal("not halved")
			}
			if lo.openLow != s.openLow || hi.openHigh != s.openHigh || lo.openHigh || hi.openLow {
				t.Fatalf("halves %+v %+v of %+v: open ends moved", lo, hi, s)
			}
			if hi.since != lo.until+1 || (!s.openLow && lo.since != s.since) || (!s.openHigh && hi.until != s.until) || lo.until < lo.since {
				t.Fatalf("halves %+v %+v do not tile %+v", lo, hi, s)
			}
		})
	}
	if _, _, ok := spanOf(Window{Since: 5, Until: 5}).halves(nil); ok {
		t.Fatal("a one-second window was halved")
	}
}

// TestLooksCut: sizes that a cap gives are suspect, others are not.
func TestLooksCut(t *testing.T) {
	for _, c := range []struct {
		n, max int
		want   bool
	}{
		{500, 0, true}, {1000, 0, true}, {5000, 0, true}, {1024, 0, true}, {20, 20, true},
		{499, 0, false}, {0, 0, false}, {0, 20, false}, {21, 20, false}, {2170, 500, false}, {64, 0, false},
	} {
		if got := looksCut(c.n, c.max); got != c.want {
			t.Errorf("looksCut(%d, max_limit %d) = %v, want %v", c.n, c.max, got, c.want)
		}
	}
}

// TestSyncNIP77TooManyAlways: a relay that answers "too many" to every
// NEG-OPEN, however small the window, cannot keep the sync halving: once
// it refuses a window of an hour or less (tooManyFloor), it is paged
// instead. The bound is in sessions, not time: at most 33 (one per
// halving of the widest window down to an hour, and the first), each on
// one websocket. Another relay is synced meanwhile by NIP-77.
func TestSyncNIP77TooManyAlways(t *testing.T) {
	var opens atomic.Int64
	u := testrelay.Scripted(t, `{"supported_nips":[1,11,77]}`, func() func(testrelay.Frame) []string {
		return func(f testrelay.Frame) []string {
			switch f.Label {
			case "NEG-OPEN":
				opens.Add(1)
				return []string{fmt.Sprintf(`["NEG-ERR",%q,"blocked: too many query results"]`, f.Sub)}
			case "REQ":
				return []string{testrelay.EOSE(f.Sub)}
			}
			return nil
		}
	})
	good := startKhatru(t, testrelay.KhatruOptions{})
	evs := season(t, 0, 6)
	if err := good.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	l := newMemLocal()
	stats, got := syncInto(t, l.options(u, good.URL))
	st := stats[0]
	if st.Method != "fallback" || !strings.Contains(st.NegError, errTooManySmall.Error()) || st.Error != "" {
		t.Fatalf("stats %s, want the fallback after a small window said too many", statLine(st))
	}
	t.Logf("%d NEG-OPENs", opens.Load())
	if n := opens.Load(); n > 33 || n < 2 {
		t.Fatalf("%d NEG-OPENs, want a few and at most 33", n)
	}
	if g := ids(got[stats[1].Relay]); stats[1].Method != "nip77" || len(g) != len(followed(evs)) {
		t.Fatalf("the other relay: %s, %d events, want nip77 and %d", statLine(stats[1]), len(g), len(followed(evs)))
	}
}

// TestSyncNIP77SplitTime: splitting stops at negSplitTime, and the relay
// is paged instead, whole.
func TestSyncNIP77SplitTime(t *testing.T) {
	old := negSplitTime
	negSplitTime = time.Nanosecond
	t.Cleanup(func() { negSplitTime = old })
	r := startKhatru(t, testrelay.KhatruOptions{})
	evs := season(t, 0, 20)
	if err := r.Store(t.Context(), evs...); err != nil {
		t.Fatal(err)
	}
	l := newMemLocal()
	st := syncStore(t, l, l.options(r.URL))
	if st.Method != "fallback" || !strings.Contains(st.NegError, "time budget") {
		t.Fatalf("stats %s, want the fallback after the time budget", statLine(st))
	}
	checkUnion(t, l, evs)
}

// TestSpanHalvesByItems: a window with stored items is halved at their
// median, and the upper half's items include the second it asks from
// below its own (span.filter).
func TestSpanHalvesByItems(t *testing.T) {
	var items []Item
	for i := int64(1); i <= 10; i++ {
		items = append(items, Item{ID: fmt.Sprint(i), CreatedAt: i})
	}
	lo, hi, ok := spanOf(Window{Since: 1, Until: 1000}).halves(items)
	if !ok || lo.until != 5 || hi.since != 6 {
		t.Fatalf("halves %+v %+v, want split after second 5", lo, hi)
	}
	a, b := splitItems(items, lo.until)
	if len(a) != 5 || a[4].CreatedAt != 5 || len(b) != 6 || b[0].CreatedAt != 5 {
		t.Fatalf("items split %v / %v, want 1-5 and 5-10", a, b)
	}
	// All in the last second: the lower half is what is left.
	same := []Item{{ID: "a", CreatedAt: 9}, {ID: "b", CreatedAt: 9}}
	if lo, hi, ok := spanOf(Window{Since: 1, Until: 9}).halves(same); !ok || lo.until != 8 || hi.since != 9 {
		t.Fatalf("halves %+v %+v, want the last second alone above", lo, hi)
	}
}

// TestByFilter: the needs of consecutive windows of a filter are fetched
// together over their joined window, up to fetchBatch ids, each id once;
// a paged window and another filter are kept apart.
func TestByFilter(t *testing.T) {
	ts := func(v int64) *gn.Timestamp { x := gn.Timestamp(v); return &x }
	base := gn.Filter{Kinds: []int{4422}}
	other := gn.Filter{Kinds: []int{4420}}
	win := func(b gn.Filter, since, until *gn.Timestamp) gn.Filter { b.Since, b.Until = since, until; return b }
	big := make([]string, fetchBatch)
	for i := range big {
		big[i] = fmt.Sprintf("%064x", i+100)
	}
	leaves := []negLeaf{
		{f: win(base, ts(20), ts(30)), base: base, need: []string{"b", "c"}},
		{f: win(base, nil, ts(20)), base: base, need: []string{"a", "b"}},
		{f: win(base, ts(30), nil), base: base, page: true},
		{f: win(base, ts(40), ts(50)), base: base, need: big},
		{f: win(base, ts(50), ts(60)), base: base, need: []string{"z"}},
		{f: win(other, ts(0), ts(9)), base: other, need: []string{"o"}},
	}
	got := byFilter(leaves)
	if len(got) != 5 {
		t.Fatalf("%d fetches, want 5", len(got))
	}
	if g := got[0]; g.f.Since != nil || *g.f.Until != 30 || !slices.Equal(g.need, []string{"b", "c", "a"}) {
		t.Errorf("first fetch %v %v, want a, b, c once over ..30", g.f, g.need)
	}
	if !got[1].page || len(got[2].need) != fetchBatch || !slices.Equal(got[3].need, []string{"z"}) || got[4].base.Kinds[0] != 4420 {
		t.Errorf("fetches %+v", got[1:])
	}
}
