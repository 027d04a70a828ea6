package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/vector"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
	"vesper/relayd"
)

// memLocal is a local store for Sync: the events it holds, by id.
type memLocal struct {
	mu   sync.Mutex
	evs  map[string]*nostr.Event
	open []string
}

func newMemLocal(evs ...*nostr.Event) *memLocal {
	l := &memLocal{evs: map[string]*nostr.Event{}}
	for _, ev := range evs {
		l.evs[ev.ID] = ev
	}
	return l
}

func (l *memLocal) options(relays ...string) Options {
	return Options{
		Relays: relays,
		Local: func(_ context.Context, kinds []int) ([]Item, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			var out []Item
			for _, ev := range l.evs {
				if slices.Contains(kinds, ev.Kind) {
					out = append(out, Item{ID: ev.ID, CreatedAt: int64(ev.CreatedAt)})
				}
			}
			return out, nil
		},
		Open: func(context.Context) ([]string, error) { return slices.Clone(l.open), nil },
		Known: func(_ context.Context, ids []string) (map[string]bool, error) {
			l.mu.Lock()
			defer l.mu.Unlock()
			out := map[string]bool{}
			for _, id := range ids {
				if l.evs[id] != nil {
					out[id] = true
				}
			}
			return out, nil
		},
		QueryTimeout: testkit.Scale(30 * time.Second), // the default: a loaded host under -race took over 5 s to page 1,000 events from khatru; a wait ends on the answer, so only tests of silence wait it whole
		ProbeTimeout: testkit.Scale(10 * time.Second), // answered at once by every relay that speaks NIP 77
		DialTimeout:  testkit.Scale(10 * time.Second), // the default
		AllowPrivate: true,                            // every test relay is on loopback (guard_test.go turns it off)
	}
}

// syncInto runs Sync and returns the stats and what it sent, by relay.
func syncInto(t *testing.T, opts Options) ([]Stats, map[string][]wire.Received) {
	t.Helper()
	out := make(chan wire.Received)
	got := map[string][]wire.Received{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for r := range out {
			got[r.Relay] = append(got[r.Relay], r)
		}
	}()
	// A generous deadline, for a hung sync only: a loaded host takes
	// minutes over what an idle one does in seconds.
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Minute))
	defer cancel()
	stats, err := Sync(ctx, opts, out)
	close(out)
	<-done
	if err != nil {
		t.Fatalf("Sync: %v", err)
	}
	return stats, got
}

func ids(rs []wire.Received) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Event.ID)
	}
	slices.Sort(out)
	return out
}

// TestSyncNIP77 reconciles with a relay that offers NIP-77 (more events
// than its max_limit, stamped months ago) and fetches exactly what the
// store lacks, each once.
func TestSyncNIP77(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 7})
	key := nostr.GenerateKey()
	a, b := relaytest.OldMatch(t, key, 20), relaytest.OldMatch(t, key, 15)
	relaytest.Seed(t, r, a...)
	relaytest.Seed(t, r, b...)
	// The store has half of a and none of b.
	l := newMemLocal(a[:10]...)
	stats, got := syncInto(t, l.options(r.URL()))
	want := relaytest.IDs(append(slices.Clone(a[10:]), b...))
	if g := ids(got[relaytest.URL(r)]); !slices.Equal(g, want) {
		t.Fatalf("fetched %d events, want the %d missing ones", len(g), len(want))
	}
	st := stats[0]
	if st.Method != "nip77" || st.Fetched != len(want) || st.Compared != 10 || st.Missing != 0 || st.Refused != 0 || st.Error != "" {
		t.Fatalf("stats %+v, want nip77 with %d fetched, 10 compared", st, len(want))
	}
	if st.Bytes == 0 || st.Rounds == 0 {
		t.Fatalf("stats %+v count no NIP-77 traffic", st)
	}
	// b's challenge was revealed, so the fallback of other relays asks for b.
	if !slices.Contains(st.Revealed, b[0].ID) {
		t.Fatalf("revealed %v lacks the new match %s", st.Revealed, b[0].ID)
	}
	// Nothing is sent twice: a second run with everything stored sends nothing.
	for _, rs := range got {
		for _, x := range rs {
			l.evs[x.Event.ID] = x.Event
		}
	}
	stats, got = syncInto(t, l.options(r.URL()))
	if len(got[relaytest.URL(r)]) != 0 || stats[0].Fetched != 0 {
		t.Fatalf("second sync fetched %d events, want 0", len(got[relaytest.URL(r)]))
	}
}

// TestSyncFallbackPaging: a relay without NIP-77 and a max_limit of 4,
// listed or not: every event of the open match and every challenge is
// fetched through pages of 4, whatever their created_at.
func TestSyncFallbackPaging(t *testing.T) {
	for _, hide := range []bool{false, true} {
		t.Run(fmt.Sprintf("hidden-limit=%v", hide), func(t *testing.T) {
			r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 4, HideLimits: hide, NoNegentropy: true})
			key := nostr.GenerateKey()
			open := relaytest.OldMatch(t, key, 17)
			other := relaytest.OldMatch(t, key, 9) // only its challenge is asked for: it is new
			relaytest.Seed(t, r, open...)
			relaytest.Seed(t, r, other...)
			l := newMemLocal(open[0])
			l.open = []string{open[0].ID}
			opts := l.options(r.URL())
			// The fallback's cost follows the open matches, not history: the
			// store's whole id set is not even read.
			var reads atomic.Int64
			local := opts.Local
			opts.Local = func(ctx context.Context, kinds []int) ([]Item, error) {
				reads.Add(1)
				return local(ctx, kinds)
			}
			stats, got := syncInto(t, opts)
			if reads.Load() != 0 {
				t.Fatalf("the local id set was read %d times for a relay without NIP-77", reads.Load())
			}
			// other is new: its challenge comes with the scan, and its moves
			// because a new challenge is followed like an open match.
			want := relaytest.IDs(append(slices.Clone(open[1:]), other...))
			if g := ids(got[relaytest.URL(r)]); !slices.Equal(g, want) {
				t.Fatalf("fetched %d events, want %d", len(g), len(want))
			}
			st := stats[0]
			if st.Method != "fallback" || !strings.Contains(st.NegError, "NIP-77") || st.Fetched != len(want) {
				t.Fatalf("stats %+v", st)
			}
			if q := r.Queries(); q < int64(len(want)/4) {
				t.Fatalf("%d queries for %d events: no paging", q, len(want))
			}
		})
	}
}

// TestSyncChallengesSince: the fallback asks for challenges from
// ChallengesSince only, and still follows every open match in full.
func TestSyncChallengesSince(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{NoNegentropy: true})
	key := nostr.GenerateKey()
	old := relaytest.OldMatch(t, key, 3)
	recent := relaytest.Sign(t, key, nostr.NewChallenge("gomoku", "", time.Now().Unix()-3600))
	relaytest.Seed(t, r, old...)
	relaytest.Seed(t, r, recent)
	l := newMemLocal()
	opts := l.options(r.URL())
	opts.NoNIP77 = true
	opts.ChallengesSince = func(string) int64 { return time.Now().Unix() - 7*86400 }
	_, got := syncInto(t, opts)
	if g := ids(got[relaytest.URL(r)]); !slices.Equal(g, []string{recent.ID}) {
		t.Fatalf("fetched %v, want only the recent challenge %s", g, recent.ID)
	}
}

// TestSyncNegErr: a relay that answers NEG-OPEN with NEG-ERR is synced by
// the fallback, and the reason is reported.
func TestSyncNegErr(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{RefuseNegentropy: "blocked: filter too broad"})
	key := nostr.GenerateKey()
	m := relaytest.OldMatch(t, key, 5)
	relaytest.Seed(t, r, m...)
	l := newMemLocal(m[0])
	l.open = []string{m[0].ID}
	stats, got := syncInto(t, l.options(r.URL()))
	if g := ids(got[relaytest.URL(r)]); !slices.Equal(g, relaytest.IDs(m[1:])) {
		t.Fatalf("fetched %d events, want %d", len(g), len(m)-1)
	}
	if st := stats[0]; st.Method != "fallback" || !strings.Contains(st.NegError, "filter too broad") {
		t.Fatalf("stats %+v, want the fallback and the NEG-ERR reason", st)
	}
}

// hostileNeg is a relay that speaks NIP-77 badly: answer builds its reply
// to every NEG-OPEN and NEG-MSG; REQs get an EOSE and nothing else.
func hostileNeg(t *testing.T, answer func(round int) string) string {
	t.Helper()
	return testrelay.Scripted(t, `{"supported_nips":[1,11,77]}`, func() func(testrelay.Frame) []string {
		round := 0
		return func(f testrelay.Frame) []string {
			switch f.Label {
			case "NEG-OPEN", "NEG-MSG":
				round++
				return []string{fmt.Sprintf(`["NEG-MSG",%q,%q]`, f.Sub, answer(round-1))}
			case "REQ":
				return []string{testrelay.EOSE(f.Sub)}
			}
			return nil
		}
	})
}

// TestSyncLyingNIP77: reconciliations that never converge, that are
// malformed, or that list ids the relay does not have end bounded, are
// reported, and never panic.
func TestSyncLyingNIP77(t *testing.T) {
	fake := strings.Repeat("ab", 32)
	cases := []struct {
		name   string
		answer func(round int) string
		check  func(st Stats) error
	}{
		{"never converges", func(int) string {
			// One range up to infinity, mode fingerprint, a fingerprint
			// that never matches: the client splits it again every time.
			return "61" + "00" + "00" + "01" + strings.Repeat("ee", 16)
		}, func(st Stats) error {
			if st.Method != "fallback" || !strings.Contains(st.NegError, "did not converge") {
				return errors.New("want the round limit")
			}
			return nil
		}},
		{"malformed", func(int) string {
			// An id list claiming a billion ids.
			return "61" + "00" + "00" + "02" + "83dc9ac0"
		}, func(st Stats) error {
			if !strings.Contains(st.NegError, "malformed") {
				return errors.New("want a malformed-message error")
			}
			return nil
		}},
		{"ids it does not have", func(int) string {
			return "61" + "00" + "00" + "02" + "01" + fake
		}, func(st Stats) error {
			if st.Method != "nip77" || st.Missing != 1 || st.Fetched != 0 {
				return errors.New("want one missing id")
			}
			return nil
		}},
		{"not hex", func(int) string { return "zz" }, func(st Stats) error {
			if !strings.Contains(st.NegError, "malformed") {
				return errors.New("want a malformed-message error")
			}
			return nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := hostileNeg(t, c.answer)
			l := newMemLocal()
			opts := l.options(u)
			opts.MaxRounds = 10
			start := time.Now()
			stats, _ := syncInto(t, opts)
			if err := c.check(stats[0]); err != nil {
				t.Fatalf("%v: stats %+v", err, stats[0])
			}
			// Rounds are bounded, not time: a relay that held the sync
			// would hold it for the query timeout of every round.
			if d := time.Since(start); d > testkit.Scale(40*time.Second) {
				t.Fatalf("took %v", d)
			}
		})
	}
}

// TestSyncNoNegOpen: a relay that does not know NEG-OPEN and says nothing
// at all is probed for ProbeTimeout only, then synced by the fallback; the
// other relays go on meanwhile.
func TestSyncNoNegOpen(t *testing.T) {
	su := testrelay.Scripted(t, "", func() func(testrelay.Frame) []string {
		return func(f testrelay.Frame) []string {
			if f.Label == "REQ" {
				return []string{testrelay.EOSE(f.Sub)}
			}
			return nil
		}
	})
	good := relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	m := relaytest.OldMatch(t, key, 3)
	relaytest.Seed(t, good, m...)
	l := newMemLocal()
	opts := l.options(su, good.URL())
	opts.ProbeTimeout = testkit.Scale(300 * time.Millisecond) // the silent relay never answers
	stats, got := syncInto(t, opts)
	if !strings.Contains(stats[0].NegError, ErrNegUnsupported.Error()) {
		t.Fatalf("silent relay: %+v", stats[0])
	}
	if stats[0].Method != "fallback" || stats[0].Error != "" {
		t.Fatalf("silent relay: %+v", stats[0])
	}
	if g := ids(got[relaytest.URL(good)]); !slices.Equal(g, relaytest.IDs(m)) || stats[1].Method != "nip77" {
		t.Fatalf("good relay: fetched %d, stats %+v", len(g), stats[1])
	}
}

// TestSyncRefusesForgeries: events that fail the checks are refused and
// counted, whichever path fetched them.
func TestSyncRefusesForgeries(t *testing.T) {
	for _, neg := range []bool{true, false} {
		t.Run(fmt.Sprintf("nip77=%v", neg), func(t *testing.T) {
			r := relaytest.StartRelay(t, relayd.Options{NoNegentropy: !neg})
			key := nostr.GenerateKey()
			m := relaytest.OldMatch(t, key, 3)
			relaytest.Seed(t, r, m...)
			forged := *relaytest.Move(t, key, m[0].ID, 4, int64(m[3].CreatedAt)+1)
			forged.Sig = strings.Repeat("cd", 64)
			if err := r.Inject(t.Context(), &forged); err != nil {
				t.Fatal(err)
			}
			l := newMemLocal(m[0])
			l.open = []string{m[0].ID}
			stats, got := syncInto(t, l.options(r.URL()))
			if g := ids(got[relaytest.URL(r)]); !slices.Equal(g, relaytest.IDs(m[1:])) {
				t.Fatalf("fetched %d, want %d", len(g), len(m)-1)
			}
			// NIP-77 lists the forgery, so it is asked for twice (the
			// second time by id alone) and refused each time, then named
			// as missing.
			refused, missing := 1, []string(nil)
			if neg {
				refused, missing = 2, []string{forged.ID}
			}
			if stats[0].Refused != refused || !slices.Equal(stats[0].MissingIDs, missing) {
				t.Fatalf("stats %+v, want %d refused, missing %v", stats[0], refused, missing)
			}
		})
	}
}

func TestCheckNegMessage(t *testing.T) {
	for _, c := range []struct {
		msg string
		ok  bool
	}{
		{"61", true},
		{"61000001" + strings.Repeat("00", 15), false}, // fingerprint one byte short
		{"61000001" + strings.Repeat("00", 16), true},
		{"610000020100", false},                   // one id announced, none there
		{"6100ff0000", false},                     // bound prefix longer than the message
		{"60", false},                             // version
		{"61000007", false},                       // mode
		{"61" + strings.Repeat("ff", 9), false},   // varint
		{"610000" + "02" + "00" + "000000", true}, // empty id list, then skip
	} {
		if err := checkNegMessage(c.msg); (err == nil) != c.ok {
			t.Errorf("checkNegMessage(%s) = %v, want ok=%v", c.msg, err, c.ok)
		}
	}
}

// FuzzNegMessage: whatever a relay sends, reconciling it never panics.
func FuzzNegMessage(f *testing.F) {
	f.Add("61")
	f.Add("61000001" + strings.Repeat("00", 16))
	f.Add("610000020100")
	f.Fuzz(func(t *testing.T, msg string) {
		if checkNegMessage(msg) != nil {
			return
		}
		_, _ = negReconcileMessage(msg)
	})
}

// negReconcileMessage feeds msg to a client that has started a
// reconciliation of one item, as negReconcile does.
func negReconcileMessage(msg string) (string, error) {
	vec := vector.New()
	vec.Insert(1, strings.Repeat("11", 32))
	vec.Seal()
	neg := negentropy.New(vec, negFrameLimit)
	neg.Start()
	stop := make(chan struct{})
	defer close(stop)
	for _, ch := range []chan string{neg.Haves, neg.HaveNots} {
		go func() {
			for {
				select {
				case _, ok := <-ch:
					if !ok {
						return
					}
				case <-stop:
					return
				}
			}
		}()
	}
	return reconcile(neg, msg)
}

// TestSyncNegSessionLost: a relay that loses the session after its first
// answer (NEG-ERR "CLOSED", as khatru does when our next message beats
// its bookkeeping; "closed: unknown subscription handle" as strfry and
// relayd say it) is reconciled by a new session.
func TestSyncNegSessionLost(t *testing.T) {
	for _, reason := range []string{"CLOSED", "closed: unknown subscription handle"} {
		t.Run(reason, func(t *testing.T) { syncNegSessionLost(t, reason) })
	}
}

func syncNegSessionLost(t *testing.T, reason string) {
	var local []*nostr.Event
	srvItems := vector.New()
	// Enough items that the first answer is fingerprints, which the client
	// must answer with a NEG-MSG.
	for i := range 2000 {
		ev := &nostr.Event{ID: fmt.Sprintf("%064x", i+1), CreatedAt: nostr.Timestamp(1000 + i)}
		srvItems.Insert(ev.CreatedAt, ev.ID)
		if i%400 != 0 {
			local = append(local, ev)
		}
	}
	srvItems.Seal()
	var sessions atomic.Int64
	var lost atomic.Bool
	u := testrelay.Scripted(t, `{"supported_nips":[77]}`, func() func(testrelay.Frame) []string {
		sessions.Add(1)
		neg := negentropy.New(srvItems, 1<<20)
		return func(f testrelay.Frame) []string {
			n := len(f.Raw)
			switch {
			case f.Label == "REQ":
				return []string{testrelay.EOSE(f.Sub)}
			case f.Label == "NEG-MSG" && lost.CompareAndSwap(false, true):
				// The first session to answer (the first connection may
				// only calibrate by REQ) is lost.
				return []string{fmt.Sprintf(`["NEG-ERR",%q,%q]`, f.Sub, reason)}
			case f.Label == "NEG-OPEN" && n == 4, f.Label == "NEG-MSG" && n == 3:
				out, err := neg.Reconcile(f.Str(n - 1))
				if err != nil {
					return []string{fmt.Sprintf(`["NEG-ERR",%q,%q]`, f.Sub, err.Error())}
				}
				return []string{fmt.Sprintf(`["NEG-MSG",%q,%q]`, f.Sub, out)}
			}
			return nil
		}
	})
	l := newMemLocal(local...)
	opts := l.options(u)
	opts.Local = func(context.Context, []int) ([]Item, error) {
		var out []Item
		for _, ev := range local {
			out = append(out, Item{ID: ev.ID, CreatedAt: int64(ev.CreatedAt)})
		}
		return out, nil
	}
	stats, _ := syncInto(t, opts)
	// The relay lists the 5 ids the store lacks (for each filter: this
	// relay ignores filters) and then sends none of them.
	if st := stats[0]; !lost.Load() || st.Method != "nip77" || st.NegError != "" || st.Missing != 5 || sessions.Load() < 3 {
		t.Fatalf("stats %+v after %d sessions (one lost: %v), want nip77 with 5 missing after a retry", st, sessions.Load(), lost.Load())
	}
}

// TestSyncMatchesSince: a match the caller leaves out of Open (a dormant
// one, issue 38) that has a new event on a relay without NIP-77 is found
// by the match kinds since MatchesSince, and then asked about whole, so
// that an old event of it the store lacks comes too.
func TestSyncMatchesSince(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{NoNegentropy: true})
	key := nostr.GenerateKey()
	old := relaytest.OldMatch(t, key, 4)
	now := time.Now().Unix()
	fresh := relaytest.Move(t, key, old[0].ID, 5, now-60)
	relaytest.Seed(t, r, old...)
	relaytest.Seed(t, r, fresh)
	l := newMemLocal(old[:4]...) // the challenge and moves 1-3: move 4 came late
	opts := l.options(r.URL())
	opts.NoNIP77 = true
	opts.ChallengesSince = func(string) int64 { return now - 7*86400 }
	opts.MatchesSince = func(string) int64 { return now - 3600 }
	_, got := syncInto(t, opts)
	want := relaytest.IDs([]*nostr.Event{old[4], fresh})
	if g := ids(got[relaytest.URL(r)]); !slices.Equal(g, want) {
		t.Fatalf("fetched %v, want the new move and the late one %v", g, want)
	}
}
