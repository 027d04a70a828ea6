package relay

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/hostile"
	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
	"vesper/relayd"
	"vesper/store"
)

// Tests of issue 13 ("a daemon that survives a hostile network"), the
// relay layer: each reproduces one attack on loopback against a hostile
// relay (internal/hostile) next to an honest one (relayd).

func startHostile(t *testing.T, opts hostile.Options) *hostile.Relay {
	t.Helper()
	h, err := hostile.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// honestWith is a relayd holding a few events, and those events.
func honestWith(t *testing.T, n int) (*relayd.Relay, []*nostr.Event) {
	t.Helper()
	r := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var evs []*nostr.Event
	for i := range n {
		evs = append(evs, relaytest.Sign(t, key, nostr.NewChallenge("chess", "", now-int64(100+i))))
	}
	relaytest.Seed(t, r, evs...)
	return r, evs
}

func waitReady(t *testing.T, c *Client, within time.Duration) time.Duration {
	t.Helper()
	t0 := time.Now()
	within = testkit.Scale(within)
	select {
	case <-c.Ready():
		return time.Since(t0)
	case <-time.After(within):
		t.Fatalf("Ready did not close within %v", within)
		return 0
	}
}

// allocated is the bytes this process allocated while f ran.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestGiantFramesBounded (item 3): a relay answering every REQ with a
// 20 MB frame is disconnected after MaxMessageSize bytes, so it costs
// kilobytes per connection, not its frame size; the honest relay's events
// arrive and Ready is not held back.
func TestGiantFramesBounded(t *testing.T) {
	const giant = 20 << 20
	h := startHostile(t, hostile.Options{GiantFrame: giant})
	r, evs := honestWith(t, 5)
	cfg := fastConfig(r.URL(), h.URL())
	var got uint64
	var c *Client
	var s *sink
	got = allocated(func() {
		c, s = run(t, cfg)
		waitReady(t, c, 10*time.Second)
		waitFor(t, "the honest events", func() bool { return s.has(relaytest.URL(r), evs...) })
		waitFor(t, "three hostile connections", func() bool { return h.Connections() >= 3 })
	})
	// Unbounded, each connection would read its 20 MB frame (go-nostr:
	// a growing buffer, twice that).
	conns := h.Connections()
	if int64(got) > 2*giant {
		t.Errorf("allocated %d MB over %d connections of 20 MB frames; the read is not bounded", got>>20, conns)
	}
	if n := h.CompressionAsked(); n != 0 {
		t.Errorf("%d connections offered permessage-deflate", n)
	}
}

// TestOversizedEventSkipped (item 3): an event message over MaxMessageSize
// is read through and dropped, not kept, and the connection stays: one
// oversized event on an honest relay must not end every backfill of its
// page in a disconnect.
func TestOversizedEventSkipped(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	big := relaytest.Sign(t, key, nostr.NewMove("m", 1, strings.Repeat("x", 1<<20), now-5))
	small := []*nostr.Event{relaytest.Move(t, key, "m", 2, now-4), relaytest.Move(t, key, "m", 3, now-6)}
	h := startHostile(t, hostile.Options{Stored: []*nostr.Event{small[0], big, small[1]}})
	var c *Client
	var s *sink
	// No pings during the test: on a loaded machine a late pong would end
	// the connection, and the count below would blame the oversized event.
	cfg := fastConfig(h.URL())
	cfg.PingInterval = time.Hour
	got := allocated(func() {
		c, s = run(t, cfg)
		waitReady(t, c, 10*time.Second)
	})
	hu := gn.NormalizeURL(h.URL())
	if !s.has(hu, small...) || s.has(hu, big) {
		t.Errorf("delivered %d events; want the two small ones only", s.count(hu))
	}
	if n := s.rejected(wire.RejectOversized); n < 1 {
		t.Errorf("oversized rejections: %d, want at least 1", n)
	}
	if n := h.Connections(); n != 1 {
		t.Errorf("%d connections: the oversized event ended one", n)
	}
	if got > 8<<20 {
		t.Errorf("allocated %d MB for one 1 MB event dropped", got>>20)
	}
}

// TestQueueBoundedInBytes (item 3): frames read ahead of the consumer are
// bounded in bytes: with a consumer that takes nothing, the reader stops
// once QueueBytes are queued.
func TestQueueBoundedInBytes(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var drip []*nostr.Event
	for i := range 400 {
		ev := nostr.NewChallenge("chess", "", now-int64(i))
		ev.Content = `{"game":"chess","pad":"` + strings.Repeat("p", 2000) + `"}`
		drip = append(drip, relaytest.Sign(t, key, ev))
	}
	h := startHostile(t, hostile.Options{Drip: drip, DripEvery: time.Microsecond})
	cn, err := wire.Dial(t.Context(), gn.NormalizeURL(h.URL()), slog.New(slog.DiscardHandler), nil, wire.Limits{QueueBytes: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	defer cn.Close(wire.ErrClosed)
	block := make(chan struct{})
	defer close(block)
	if _, err := cn.Subscribe(wire.GameFilters(nil), func(*gn.Event) { <-block }); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first events", func() bool { return h.Sent() > 50 })
	// Let the reader run ahead as far as it may, then look.
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		q := cn.Queued()
		if q > 64<<10+4<<10 {
			t.Fatalf("queued %d bytes, limit %d", q, 64<<10)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoEOSEDripDoesNotHoldReady (item 2): a relay that never sends EOSE
// and drips a valid event more often than the query timeout neither keeps
// a query waiting for ever nor holds Ready past the backfill budget.
func TestNoEOSEDripDoesNotHoldReady(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var drip []*nostr.Event
	for i := range 200 {
		drip = append(drip, relaytest.Sign(t, key, nostr.NewChallenge("chess", "", now-int64(i))))
	}
	h := startHostile(t, hostile.Options{NoEOSE: true, Drip: drip, DripEvery: 50 * time.Millisecond})

	t.Run("query", func(t *testing.T) {
		cn, err := wire.Dial(t.Context(), gn.NormalizeURL(h.URL()), slog.New(slog.DiscardHandler), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cn.Close(wire.ErrClosed)
		s, err := cn.Subscribe(wire.GameFilters(nil), func(*gn.Event) {})
		if err != nil {
			t.Fatal(err)
		}
		// The drip lasts 10 s (200 events, one per 50 ms): a wait the
		// drip restarted would end only with it.
		t0 := time.Now()
		err = cn.WaitEOSE(t.Context(), s, time.Second) // expected to run out
		if !errors.Is(err, wire.ErrNoEOSE) {
			t.Fatalf("waitEOSE: %v, want wire.ErrNoEOSE", err)
		}
		// Measured by the drip, not the wall clock: the drip's own pace
		// slows with a busy machine as the wait does.
		if n := h.Sent(); n >= int64(len(drip)) {
			t.Errorf("waitEOSE took %v with a 1 s timeout, past the whole drip (%d events): the drip restarts it", time.Since(t0), n)
		}
	})
	t.Run("ready", func(t *testing.T) {
		r, evs := honestWith(t, 5)
		cfg := fastConfig(r.URL(), h.URL())
		cfg.QueryTimeout = 5 * time.Second // longer than the budget
		cfg.BackfillBudget = time.Second
		c, s := run(t, cfg)
		if d := waitReady(t, c, 30*time.Second); d < 900*time.Millisecond {
			t.Errorf("Ready after %v, before the budget ran out", d)
		}
		if !s.has(relaytest.URL(r), evs...) {
			t.Error("Ready before the honest relay's events were delivered")
		}
	})
}

// TestEndlessPagesBudget (item 2): a relay that has a fresh page for every
// query is asked for BackfillPages pages per session, then the relay counts
// as settled and the session ends; it never keeps the client paging.
func TestEndlessPagesBudget(t *testing.T) {
	for _, same := range []bool{false, true} {
		name := map[bool]string{false: "moving back", true: "same second"}[same]
		t.Run(name, func(t *testing.T) {
			h := startHostile(t, hostile.Options{EndlessPages: true, SameSecond: same})
			r, evs := honestWith(t, 3)
			cfg := fastConfig(r.URL(), h.URL())
			cfg.PageLimit, cfg.BackfillPages = 20, 5
			cfg.BackfillBudget = time.Minute
			c, s := run(t, cfg)
			waitReady(t, c, 10*time.Second)
			if !s.has(relaytest.URL(r), evs...) {
				t.Error("honest events missing at Ready")
			}
			waitFor(t, "a second hostile session", func() bool { return h.Connections() >= 2 })
			// Per session: the live REQ, BackfillPages pages, maybe one more
			// live REQ as the next session opens.
			if reqs, conns := h.REQs(), h.Connections(); reqs > conns*int64(cfg.BackfillPages+2) {
				t.Errorf("%d REQs over %d sessions, budget %d pages a session", reqs, conns, cfg.BackfillPages)
			}
		})
	}
}

// TestNoticeFloodLogBounded (item 7): 1,000 notices of 32 KB make a few
// short log lines, not 32 MB of log.
func TestNoticeFloodLogBounded(t *testing.T) {
	h := startHostile(t, hostile.Options{Notices: 1000, NoticeSize: 32 << 10})
	var log testkit.Buffer
	cfg := fastConfig(h.URL())
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	cfg.MaxMessageSize = 1 << 20
	run(t, cfg)
	waitFor(t, "the flood to be read", func() bool { return h.NoticesSent() >= 1000 })
	out := log.String()
	lines := strings.Count(out, "relay: notice")
	if lines > wire.NoticeBurst+2 || len(out) > 64<<10 {
		t.Errorf("%d notice lines, %d bytes of log for 1000 notices", lines, len(out))
	}
	if lines == 0 {
		t.Error("no notice logged at all")
	}
}

// TestHugeNIP11 (item 4): a 10 MB NIP-11 document is not read past
// limits.MaxInfoSize, and concurrent and repeated asks share one request.
func TestHugeNIP11(t *testing.T) {
	h := startHostile(t, hostile.Options{InfoSize: 10 << 20})
	var docs []*bool
	got := allocated(func() {
		var wg sync.WaitGroup
		for range 8 {
			ok := new(bool)
			docs = append(docs, ok)
			wg.Go(func() { *ok = limits.Document(t.Context(), h.URL(), testkit.Scale(5*time.Second)) != nil })
		}
		wg.Wait()
		limits.Document(t.Context(), h.URL(), testkit.Scale(5*time.Second))
	})
	for i, ok := range docs {
		if *ok {
			t.Errorf("caller %d got a document over limits.MaxInfoSize", i)
		}
	}
	if n := h.InfoRequests(); n != 1 {
		t.Errorf("%d NIP-11 requests for 9 asks, want 1 (cached)", n)
	}
	if got > 8<<20 {
		t.Errorf("allocated %d MB", got>>20)
	}
}

// TestNIP11CachedForPublish (item 4): publishing several events reads the
// relay's NIP-11 document once.
func TestNIP11CachedForPublish(t *testing.T) {
	h := startHostile(t, hostile.Options{})
	key := nostr.GenerateKey()
	for i := range 5 {
		ev := relaytest.Sign(t, key, nostr.NewChallenge("chess", "", time.Now().Unix()-int64(i)))
		Publish(t.Context(), []string{h.URL()}, ev, testkit.Scale(5*time.Second))
	}
	if n := h.InfoRequests(); n != 1 {
		t.Errorf("%d NIP-11 requests for 5 publications, want 1", n)
	}
}

// TestSubscriptionsSplit (item 1): 9,000 watched authors do not make one
// REQ past the relay's limits: against khatru (512,000 bytes a message)
// the client stays connected and a profile of the last author still
// arrives live; against a relay announcing small limits, no REQ exceeds
// them.
func TestSubscriptionsSplit(t *testing.T) {
	authors := make([]string, 9000)
	for i := range authors {
		authors[i] = nostr.GenerateKey().PublicKey()
	}
	last := nostr.GenerateKey()
	t.Run("khatru", func(t *testing.T) {
		r := relaytest.StartRelay(t, relayd.Options{})
		c, s := run(t, fastConfig(r.URL()))
		c.WatchAuthors(authors...)
		c.WatchAuthors(last.PublicKey())
		waitReady(t, c, 10*time.Second)
		// Profiles are fetched after the backfill; a profile sent now
		// reaches the client only through a live subscription or the
		// fetch, and either proves the connection lives.
		waitFor(t, "the profile fetches", func() bool { return r.Queries() > 90 })
		prof := relaytest.Sign(t, last, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: gn.Timestamp(time.Now().Unix()), Content: `{"name":"last"}`})
		relaytest.Seed(t, r, prof)
		waitFor(t, "the live profile", func() bool { return s.has(relaytest.URL(r), prof) })
		if n := r.Connections(); n != 1 {
			t.Errorf("%d connections: the relay dropped the client", n)
		}
	})
	t.Run("announced limits", func(t *testing.T) {
		h := startHostile(t, hostile.Options{Info: map[string]any{
			"max_message_length": 20000, "max_subscriptions": 8, "max_filters": 2,
		}})
		c, _ := run(t, fastConfig(h.URL()))
		c.WatchAuthors(authors...)
		waitReady(t, c, 10*time.Second)
		waitFor(t, "the profile subscriptions", func() bool { return h.REQs() >= 5 })
		if n := h.MaxClientMessage(); n > 20000 {
			t.Errorf("a REQ of %d bytes, max_message_length 20000", n)
		}
	})
}

// TestBackfillResumesAfterRestart (item 12): a client stopped in the middle
// of a long backfill resumes where it stopped, instead of starting again
// from the newest page, so a crash loop still catches up.
func TestBackfillResumesAfterRestart(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 5})
	key := nostr.GenerateKey()
	old := time.Now().Unix() - 3600 // older than SafetyMargin: the resume skips it
	var evs []*nostr.Event
	for i := range 60 {
		evs = append(evs, relaytest.Move(t, key, "m", i+1, old-int64(i)))
	}
	relaytest.Seed(t, r, evs...)
	cursors := NewMemCursors()
	cfg := fastConfig(r.URL())
	cfg.Cursors, cfg.BackfillPages = cursors, 4
	cfg.MaxBackoff = time.Hour // one session only, in this first run
	cfg.MinBackoff = time.Hour

	ctx, cancel := context.WithCancel(t.Context())
	c := New(cfg)
	out := make(chan Received) // unbuffered: progress is saved once taken
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, out) }()
	var mu sync.Mutex
	first := 0
	go func() {
		for {
			select {
			case rc := <-out:
				mu.Lock()
				if rc.Event != nil {
					first++
				}
				mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	}()
	waitFor(t, "the budget to end the first session", func() bool {
		_, _, until, _ := cursors.Backfill(ctx, relaytest.URL(r))
		return len(until) == 2 && until[1] < old
	})
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if first == 0 || first >= len(evs) {
		t.Fatalf("first run delivered %d of %d events; want part", first, len(evs))
	}
	q0 := r.Queries()

	cfg.BackfillPages, cfg.MinBackoff, cfg.MaxBackoff = 100, 10*time.Millisecond, 100*time.Millisecond
	_, s := run(t, cfg)
	waitFor(t, "the rest", func() bool { return s.has(relaytest.URL(r), evs[first:]...) })
	// Starting again would re-read the first run's pages too.
	if s.has(relaytest.URL(r), evs[0]) {
		t.Error("the second run read the newest page again: the backfill restarted")
	}
	waitFor(t, "the progress to clear", func() bool {
		_, _, until, _ := cursors.Backfill(t.Context(), relaytest.URL(r))
		cur, _ := cursors.Cursor(t.Context(), relaytest.URL(r))
		return len(until) == 0 && cur > old
	})
	t.Logf("first run %d events, %d queries; second %d queries", first, q0, r.Queries()-q0)
}

// TestCrashLoopCatchesUp (item 12): a daemon killed after every few pages
// (here: each run ends at its page budget, as a kill would) still gets to
// the end of a long backfill, with its progress in a real SQLite store
// saved the daemon's way: marks behind their events, through SaveMark.
// Without saved progress every run would read the same newest pages.
func TestCrashLoopCatchesUp(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 5})
	key := nostr.GenerateKey()
	old := time.Now().Unix() - 3600
	var evs []*nostr.Event
	for i := range 80 {
		evs = append(evs, relaytest.Move(t, key, "m", i+1, old-int64(i)))
	}
	relaytest.Seed(t, r, evs...)
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := map[string]bool{}
	runs := 0
	for ; runs < 30; runs++ {
		if c, _ := st.Cursor(t.Context(), relaytest.URL(r)); c > old {
			break
		}
		cfg := fastConfig(r.URL())
		cfg.Cursors, cfg.MarkCursors, cfg.BackfillPages = st, true, 4
		ctx, cancel := context.WithCancel(t.Context())
		c := New(cfg)
		out := make(chan Received)
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx, out) }()
		// Consume until the session's budget or its end: the first mark
		// with a cursor, or the budget's last progress mark.
	consume:
		for {
			select {
			case rc := <-out:
				if rc.Event != nil {
					got[rc.Event.ID] = true
					continue
				}
				if err := SaveMark(ctx, st, rc); err != nil {
					t.Fatal(err)
				}
				if rc.Cursor > 0 {
					break consume
				}
			case <-c.Ready():
				break consume // the budget ended the session
			case <-time.After(testkit.Scale(10 * time.Second)):
				t.Fatal("run stalled")
			}
		}
		cancel() // the "kill": whatever was not yet saved is lost
		<-done
	}
	if c, _ := st.Cursor(t.Context(), relaytest.URL(r)); c <= old {
		t.Fatalf("after %d runs the backfill had not finished (cursor %d)", runs, c)
	}
	for _, ev := range evs {
		if !got[ev.ID] {
			t.Fatalf("event %s never delivered over %d runs", ev.ID, runs)
		}
	}
	if _, _, until, _ := st.Backfill(t.Context(), relaytest.URL(r)); len(until) != 0 {
		t.Errorf("progress left after the backfill finished: %v", until)
	}
	t.Logf("%d runs of 4 pages for %d events", runs, len(evs))
}

// TestEventBudgetSettles (item 2): a relay whose first backfill goes on
// delivering stops holding Ready back after BackfillEvents events, long
// before its page budget or its time budget.
func TestEventBudgetSettles(t *testing.T) {
	h := startHostile(t, hostile.Options{EndlessPages: true})
	cfg := fastConfig(h.URL())
	cfg.PageLimit, cfg.BackfillPages, cfg.BackfillEvents = 50, 1000, 120
	cfg.BackfillBudget = time.Minute
	c, s := run(t, cfg)
	waitReady(t, c, 10*time.Second)
	s.mu.Lock()
	n := s.total
	s.mu.Unlock()
	// The sink may be an event or two behind what was handed over.
	if n > 50*cfg.BackfillPages/2 {
		t.Errorf("Ready only after %d events: the page budget, not the event budget, settled it", n)
	}
}
