package daemon

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// Tests of issue 30's quota items, each reproducing its attack at CI size
// (lowered quotas) against a real store.

// spreadGomoku returns plies of a gomoku game in which no stone touches
// another of its colour (the first player on points (3i, 3j), the second
// on (3i+1, 3j+1)), so that no one makes five and the game goes on for
// up to 50 plies.
func spreadGomoku(plies int) []string {
	var out []string
	for i := 0; len(out) < plies; i++ {
		r, c := 3*(i/5), 3*(i%5)
		out = append(out, fmt.Sprintf("%c%d", 'a'+c, r+1))
		if len(out) < plies {
			out = append(out, fmt.Sprintf("%c%d", 'a'+c+1, r+2))
		}
	}
	return out
}

// wantFolded fails unless the daemon's state of m equals the fold of all
// of m's events, with plies counted moves.
func wantFolded(t *testing.T, n *Daemon, m *testkit.Match, plies int) {
	t.Helper()
	want, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want.Plies() != plies {
		t.Fatalf("the test's game has %d plies, want %d", want.Plies(), plies)
	}
	s, err := n.Load(context.Background(), m.ID)
	if err != nil || s == nil {
		t.Fatalf("match not folded: %v", err)
	}
	if s.Plies() != plies || !reflect.DeepEqual(s.Moves, want.Moves) {
		t.Fatalf("the daemon has %d plies, the fold of every event %d", s.Plies(), plies)
	}
}

func stored(t *testing.T, n *Daemon, evs ...*nostr.Event) int {
	t.Helper()
	k := 0
	for _, ev := range evs {
		if has, err := n.st.HasEvent(context.Background(), ev.ID); err != nil {
			t.Fatal(err)
		} else if has {
			k++
		}
	}
	return k
}

// Item 2: a relay re-sending a match's own events, again and again, in one
// batch and one at a time, spends nobody's quota: the players' next moves
// are stored and folded.
func TestReplayedEventsSpendNoQuota(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.lim.EventsPerAuthor = 15
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-1000)
	m.Accept(tNow - 990)
	moves := spreadGomoku(24)
	m.Play(moves[:20], tNow-980, 10)
	deliver(t, n, "ws://honest", m.Events...)
	for range 3 {
		deliver(t, n, "ws://replay", m.Events...)
		for _, ev := range m.Events {
			deliver(t, n, "ws://replay", ev)
		}
	}
	var next []*nostr.Event
	for i := 20; i < 24; i++ {
		k := alice
		if i%2 == 1 {
			k = bob
		}
		next = append(next, m.Move(k, i+1, moves[i], tNow-700+int64(i)))
	}
	deliver(t, n, "ws://honest", next...)
	if got := stored(t, n, next...); got != len(next) {
		t.Fatalf("%d of the players' %d moves after the replays stored", got, len(next))
	}
	wantFolded(t, n, m, 24)
}

// Item 3: with the per-match quota at 10, a legal 50-ply game (25 moves
// a player) is stored whole, in one batch (a backfill: challenge, accept
// and moves together) and dripped a few events at a time; a player's
// allowance is the quota plus half the longest game (gomoku: 113), and a
// stranger's stays the quota.
func TestPlayersNotCutBelowTheRules(t *testing.T) {
	alice, bob, mallory := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("mallory")
	m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-5000)
	m.Accept(tNow - 4990)
	m.Play(spreadGomoku(50), tNow-4980, 10)
	t.Run("one batch", func(t *testing.T) {
		n := testNode(t, nostr.SecretKey{})
		n.lim.EventsPerAuthor = 10
		deliver(t, n, "ws://honest", m.Events...)
		wantFolded(t, n, m, 50)
	})
	n := testNode(t, nostr.SecretKey{})
	n.lim.EventsPerAuthor = 10
	for i := 0; i < len(m.Events); i += 4 {
		deliver(t, n, "ws://honest", m.Events[i:min(i+4, len(m.Events))]...)
	}
	wantFolded(t, n, m, 50)
	var junk, strange []*nostr.Event
	for i := int64(0); i < 100; i++ {
		junk = append(junk, m.Request(alice, tNow-3000+i))
		strange = append(strange, m.Request(mallory, tNow-3000+i))
	}
	deliver(t, n, "ws://hostile", junk...)
	deliver(t, n, "ws://hostile", strange...)
	if got, want := stored(t, n, junk...), 10+113-25; got != want {
		t.Errorf("a player's junk: %d stored, want %d (its allowance less its 25 moves)", got, want)
	}
	if got := stored(t, n, strange...); got != 10 {
		t.Errorf("a stranger's junk: %d stored, want the quota, 10", got)
	}
}

// Item 4: a flood spends a relay's hourly challenge budget; a challenge
// posted after it is held, not lost: it comes in when another key accepts
// it (or had already), and a held one is offered the next hour's budget
// before that hour's flood, also after a restart. An accept by the
// challenge's own author does not bring it in; the held ones are bounded.
func TestChallengeFloodCensorsNoMatch(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.lim.RelayChallenges, n.lim.HeldChallenges = 5, 50
	flood := func(tag string, k int, at int64) []*nostr.Event {
		var out []*nostr.Event
		for i := 0; i < k; i++ {
			out = append(out, testkit.Sign(testkit.Key(fmt.Sprint(tag, i)), nostr.NewChallenge("chess", "", at)))
		}
		return out
	}
	junk := flood("junk", 7, tNow-100)
	deliver(t, n, "ws://flood", junk...)
	if got := stored(t, n, junk...); got != 5 {
		t.Fatalf("flood: %d stored, want the budget, 5", got)
	}
	alice, bob, carol, dave := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("carol"), testkit.Key("dave")
	a := testkit.NewMatch(alice, bob, "chess", "", tNow-50)
	c := testkit.NewMatch(carol, bob, "chess", "", tNow-49)
	d := testkit.NewMatch(dave, bob, "chess", "", tNow-48)
	deliver(t, n, "ws://flood", a.Events[0], c.Events[0], d.Events[0])
	if got := stored(t, n, a.Events[0], c.Events[0], d.Events[0]); got != 0 {
		t.Fatalf("%d challenges stored past the budget", got)
	}
	deliver(t, n, "ws://other", d.Add(dave, nostr.NewAccept(d.ID, dave.PublicKey(), tNow-40)))
	if stored(t, n, d.Events[0]) != 0 {
		t.Error("an accept by the challenge's own author brought it in")
	}
	deliver(t, n, "ws://other", a.Accept(tNow-30))
	if s := n.state(a.ID); s == nil || !s.Accepted || s.Second != bob.PublicKey() {
		t.Fatal("a held challenge that bob accepted is not an accepted match")
	}
	// An accept first (from a relay the challenge never reached), then the
	// challenge over the budget: it is answered, so it comes in.
	e := testkit.NewMatch(testkit.Key("erin"), bob, "chess", "", tNow-20)
	deliver(t, n, "ws://other", e.Accept(tNow-10))
	deliver(t, n, "ws://flood", e.Events[0])
	if s := n.state(e.ID); s == nil || !s.Accepted {
		t.Fatal("a challenge over the budget that bob had accepted was dropped")
	}
	// Held: two of the flood, carol's and dave's; a challenge of 10 KB over
	// the budget is not held (held ones are small, as real ones are).
	big := nostr.NewChallenge("chess", "", tNow-5)
	big.Content = strings.Repeat("x", 10_000)
	deliver(t, n, "ws://flood", testkit.Sign(testkit.Key("big"), big))
	if held, err := n.st.HeldCount(context.Background()); err != nil || held != 4 {
		t.Errorf("%d challenges held (%v), want 4", held, err)
	}
	// The next hour, after a restart: the held ones (two junk, carol's,
	// dave's) are offered its budget before the new flood.
	n2 := newNode(n.st, nostr.SecretKey{}, nil, arbiter.DefaultConfig(), discardLog())
	n2.lim = n.lim
	n2.clock = func() int64 { return tNow + 3600 }
	deliver(t, n2, "ws://flood", flood("again", 7, tNow+3500)...)
	if got := stored(t, n2, c.Events[0]); got != 1 {
		t.Fatal("carol's held challenge was not stored in the next hour")
	}
	if s := n2.state(c.ID); s == nil {
		t.Fatal("carol's challenge is stored but not folded")
	}
	// Bounded: a flood far over the budget keeps at most 50 held.
	n2.clock = func() int64 { return tNow + 7300 }
	deliver(t, n2, "ws://flood", flood("more", 200, tNow+7200)...)
	if held, err := n2.st.HeldCount(context.Background()); err != nil || held != 50 {
		t.Errorf("%d challenges held (%v), want the bound, 50", held, err)
	}
}

// A held challenge is counted once, as held and as dropped by the relay
// budget: not again when a relay sends it again, nor each hour it is
// offered a budget that has no room for it.
func TestHeldChallengeCountedOnce(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.lim.RelayChallenges, n.lim.HeldChallenges = 2, 50
	n.met = newMetrics(func() int { return 0 })
	var chs []*nostr.Event
	for i := 0; i < 6; i++ {
		chs = append(chs, testkit.Sign(testkit.Key(fmt.Sprint("held", i)), nostr.NewChallenge("chess", "", tNow-100+int64(i))))
	}
	counts := func(when string, held, dropped float64) {
		t.Helper()
		if got := metric(t, n.met, "vesper_challenges_held_total", "what", "held"); got != held {
			t.Errorf("%s: %v counted held, want %v", when, got, held)
		}
		if got := metric(t, n.met, "vesper_quota_dropped_total", "quota", "relay_challenges"); got != dropped {
			t.Errorf("%s: %v counted dropped by the relay budget, want %v", when, got, dropped)
		}
	}
	deliver(t, n, "ws://flood", chs...)
	counts("the flood", 4, 4)
	deliver(t, n, "ws://flood", chs[5])
	counts("a held one sent again", 4, 4)
	// Each hour two of the four come in; the others are offered again.
	n.clock = func() int64 { return tNow + 3600 }
	deliver(t, n, "ws://flood")
	if held, err := n.st.HeldCount(context.Background()); err != nil || held != 2 {
		t.Fatalf("%d challenges held after an hour (%v), want 2", held, err)
	}
	counts("an hour on", 4, 4)
}

// A held challenge offered an hour's budget while its author has its fill
// of open challenges stays held, and counts no drop: it counted when held.
func TestHeldChallengeOverOpenQuotaCountsOnce(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.lim.RelayChallenges, n.lim.OpenPerAuthor = 1, 1
	n.met = newMetrics(func() int { return 0 })
	alice := testkit.Key("alice")
	deliver(t, n, "ws://x", testkit.Sign(testkit.Key("carol"), nostr.NewChallenge("chess", "", tNow-30)))
	deliver(t, n, "ws://x", testkit.Sign(alice, nostr.NewChallenge("chess", "", tNow-20))) // held
	deliver(t, n, "ws://y", testkit.Sign(alice, nostr.NewChallenge("chess", "", tNow-10))) // alice's one open
	for h := int64(1); h <= 3; h++ {
		n.clock = func() int64 { return tNow + h*3600 }
		deliver(t, n, "ws://x")
	}
	if held, err := n.st.HeldCount(context.Background()); err != nil || held != 1 {
		t.Errorf("%d held (%v), want alice's one", held, err)
	}
	if got := metric(t, n.met, "vesper_quota_dropped_total", "quota", "open_challenges"); got > 0 {
		t.Errorf("%v counted dropped by the open quota, want none", got)
	}
	if got := metric(t, n.met, "vesper_quota_dropped_total", "quota", "relay_challenges"); got != 1 {
		t.Errorf("%v counted dropped by the relay budget, want 1", got)
	}
}
