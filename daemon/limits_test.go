package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/store"
)

// Tests of issue 13's input, store and duty limits, each reproducing its
// attack at CI size against a real store.

const tNow = int64(1_790_000_000)

// testNode is a node on a fresh store file with a fixed clock.
func testNode(t testing.TB, key nostr.SecretKey) *Daemon {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := newNode(st, key, nil, arbiter.DefaultConfig(), discardLog())
	n.clock = func() int64 { return tNow }
	return n
}

// deliver ingests events as relay url sent them.
func deliver(t testing.TB, n *Daemon, url string, evs ...*nostr.Event) {
	t.Helper()
	batch := make([]relay.Received, 0, len(evs))
	for _, ev := range evs {
		batch = append(batch, relay.Received{Event: ev, Relay: url})
	}
	if _, err := n.ingest(context.Background(), batch); err != nil {
		t.Fatal(err)
	}
}

func storedSummary(t *testing.T, n *Daemon, id string) match.Summary {
	t.Helper()
	sum, ok, err := n.st.Summary(context.Background(), id)
	if err != nil || !ok {
		t.Fatalf("summary of %s: %v %v", id, ok, err)
	}
	var out match.Summary
	if err := json.Unmarshal(sum.JSON, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Item 5: a 200 KB move is stored as a stub, and one event naming 100
// matches is stored once under at most match.StubMatches of them; both are
// listed as ignored exactly as the fold lists the originals, and the
// export does not republish them.
func TestIngestStubsOversizedAndFanOut(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	ctx := context.Background()
	alice, bob, mallory := testkit.Key("alice"), testkit.Key("bob"), testkit.Key("mallory")
	a := testkit.NewMatch(alice, bob, "chess", "", tNow-600)
	a.Accept(tNow - 590)
	b := testkit.NewMatch(bob, alice, "gomoku", "", tNow-500)
	deliver(t, n, "ws://honest", append(a.Events, b.Events...)...)

	big := a.Move(mallory, 1, "e2e4"+strings.Repeat(" ", 200_000), tNow-300)
	fan := nostr.NewRequest(a.ID, "", tNow-200)
	fan.Tags = nostr.Tags{{"g", a.ID}, {"g", b.ID}}
	for i := 0; i < 98; i++ {
		fan.Tags = append(fan.Tags, []string{"g", fmt.Sprintf("%064x", i)})
	}
	a.Add(mallory, fan)
	b.Events = append(b.Events, fan)
	deliver(t, n, "ws://hostile", big, fan)

	for _, ev := range []*nostr.Event{big, fan} {
		se, ok, err := n.st.Event(ctx, ev.ID)
		if err != nil || !ok {
			t.Fatalf("event %s not stored: %v", ev.ID, err)
		}
		if len(se.Raw) > 6000 || !match.IsStub(se.Event) {
			t.Errorf("event %s stored as %d bytes (stub %v), want a stub", ev.ID[:8], len(se.Raw), match.IsStub(se.Event))
		}
	}
	if got := len(store.MatchesOf(match.Stub(fan))); got != match.StubMatches {
		t.Errorf("the fan-out event is recorded under %d matches, want %d", got, match.StubMatches)
	}
	for _, m := range []*testkit.Match{a, b} {
		want, err := match.Fold(m.ID, m.Events, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := storedSummary(t, n, m.ID)
		if !reflect.DeepEqual(got.Ignored, want.Summary(tNow).Ignored) {
			t.Errorf("match %s: ignored %v, want %v (the fold of the originals)", m.ID[:8], got.Ignored, want.Summary(tNow).Ignored)
		}
	}
	profile := testkit.Sign(mallory, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(tNow),
		Content: `{"name":"` + strings.Repeat("m", 100_000) + `"}`})
	deliver(t, n, "ws://hostile", profile)
	if _, ok, _ := n.st.Profile(ctx, mallory.PublicKey()); ok {
		t.Error("a 100 KB profile was stored")
	}
	// A re-fold from the store (a restart) gives the same summary.
	before := storedSummary(t, n, a.ID)
	if _, err := n.refold(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if after := storedSummary(t, n, a.ID); !reflect.DeepEqual(before, after) {
		t.Errorf("re-fold changed the summary:\n%v\n%v", before, after)
	}
}

// Item 10: accepts dripped one at a time into a long match, stamped
// between its events, are placed without a re-fold each, and the stored
// summary keeps a bounded ignored list while counting the rest.
func TestBackdatedDripCostsNoRefold(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.lim.SummaryIgnored = 50
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-100_000)
	m.Accept(tNow - 99_000)
	m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8"}, tNow-98_000, 1000)
	deliver(t, n, "ws://honest", m.Events...)
	base := n.refolds.Load()
	const drips = 200
	for i := 0; i < drips; i++ {
		ev := m.Add(testkit.Key(fmt.Sprint("drip", i)), nostr.NewAccept(m.ID, alice.PublicKey(), tNow-98_900+int64(i)*30))
		deliver(t, n, "ws://hostile", ev)
	}
	if got := n.refolds.Load() - base; got != 0 {
		t.Errorf("%d re-folds for %d backdated accepts, want 0", got, drips)
	}
	got := storedSummary(t, n, m.ID)
	full, _ := match.Fold(m.ID, m.Events, nil)
	want := full.Summary(tNow).Capped(50)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stored summary differs from the capped fold:\n got %s\nwant %s", match.MarshalLine(got), match.MarshalLine(want))
	}
	if len(got.Ignored) != 50 || got.IgnoredOmitted != drips-50 {
		t.Errorf("ignored: %d listed, %d omitted; want 50 and %d", len(got.Ignored), got.IgnoredOmitted, drips-50)
	}
}

// Item 11: the per-author, per-match and per-relay quotas drop what is
// over them; the daemon's own events and copies of stored events pass.
func TestIngestQuotas(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.lim.OpenPerAuthor, n.lim.EventsPerAuthor, n.lim.RelayChallenges = 3, 4, 6
	ctx := context.Background()
	spammer, alice, bob := testkit.Key("spammer"), testkit.Key("alice"), testkit.Key("bob")
	var own []*nostr.Event
	for i := int64(0); i < 5; i++ {
		own = append(own, testkit.Sign(spammer, nostr.NewChallenge("chess", "", tNow-100+i)))
	}
	deliver(t, n, "ws://a", own...)
	count := func(evs []*nostr.Event) int {
		k := 0
		for _, ev := range evs {
			if has, _ := n.st.HasEvent(ctx, ev.ID); has {
				k++
			}
		}
		return k
	}
	if got := count(own); got != 3 {
		t.Errorf("one author's open challenges: %d stored, want 3", got)
	}
	// A copy of a stored challenge from another relay still records it.
	deliver(t, n, "ws://b", own[0])
	if se, _, _ := n.st.Event(ctx, own[0].ID); len(se.Relays) != 2 {
		t.Errorf("relays of a re-delivered challenge: %v, want both", se.Relays)
	}
	var fresh []*nostr.Event
	for i := 0; i < 10; i++ {
		fresh = append(fresh, testkit.Sign(testkit.Key(fmt.Sprint("fresh", i)), nostr.NewChallenge("gomoku", "", tNow-50)))
	}
	deliver(t, n, "ws://b", fresh...)
	if got := count(fresh); got != 6 {
		t.Errorf("fresh keys through one relay: %d stored, want 6", got)
	}
	deliver(t, n, "ws://c", fresh[9])
	if got := count(fresh); got != 7 {
		t.Errorf("another relay's quota is its own: %d stored, want 7", got)
	}
	m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-40)
	m.Accept(tNow - 30)
	deliver(t, n, "", m.Events...)
	var junk []*nostr.Event
	for i := 0; i < 7; i++ {
		junk = append(junk, m.Add(testkit.Key("spammer"), nostr.NewRequest(m.ID, "", tNow-20+int64(i))))
	}
	deliver(t, n, "ws://a", junk[:2]...)
	deliver(t, n, "ws://a", junk[2:]...)
	if got := count(junk); got != 4 {
		t.Errorf("one author's events in one match: %d stored, want 4", got)
	}
	mine := m.Move(alice, 1, "h8", tNow-5)
	deliver(t, n, "", mine)
	if got := count([]*nostr.Event{mine}); got != 1 {
		t.Error("the daemon's own event was dropped by a quota")
	}
	// Two copies of one challenge in one batch (the backfill and the sync
	// both sent it) count once against its author's quota.
	carol := testkit.Key("carol")
	c1 := testkit.Sign(carol, nostr.NewChallenge("chess", "", tNow-10))
	c2 := testkit.Sign(carol, nostr.NewChallenge("gomoku", "", tNow-9))
	n.lim.OpenPerAuthor = 2
	deliver(t, n, "ws://d", c1, c1, c2)
	if got := count([]*nostr.Event{c1, c2}); got != 2 {
		t.Errorf("a copy in the same batch spent the quota: %d of 2 challenges stored", got)
	}
}

// Item 8: one pass records at most --max-duties duties and the next pass
// the next ones; every ruling is still the correct one.
func TestDutiesBoundedPerPass(t *testing.T) {
	house := testkit.Key("house")
	n := testNode(t, house)
	n.lim.DutiesPerPass = 4
	ctx := context.Background()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	var all []*nostr.Event
	var ids []string
	for i := int64(0); i < 10; i++ {
		m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-5*86400+i)
		m.Accept(tNow - 5*86400 + 100)
		m.Move(alice, 1, "h8", tNow-5*86400+200)
		m.Request(alice, tNow-2*86400)
		all = append(all, m.Events...)
		ids = append(ids, m.ID)
	}
	deliver(t, n, "ws://honest", all...)
	for pass, want := range []int{4, 4, 2, 0} {
		got, err := n.decide(ctx)
		if err != nil || got != want {
			t.Fatalf("pass %d: recorded %d, %v; want %d", pass, got, err, want)
		}
	}
	items, _ := n.st.OutboxPending(ctx)
	if len(items) != 10 {
		t.Fatalf("%d duties pending, want 10", len(items))
	}
	for _, id := range ids {
		if s, err := n.Load(ctx, id); err != nil || s == nil || !s.Final || s.FinalBy != match.FinalByRuling {
			t.Errorf("match %s: not final by the house's ruling", id[:8])
		}
		// A final match leaves memory (issue 16): the store has it.
		if n.state(id) != nil {
			t.Errorf("match %s: final, still kept in memory", id[:8])
		}
	}
}

// Item 9: a challenge inviting the house stamped 30 days ahead is not
// accepted (it would hold a game slot for a month); one stamped now is;
// and the house never stamps its own event beyond --max-skew ahead, even
// when the opponent stamped the match in the future.
func TestHouseDefersFutureDated(t *testing.T) {
	house := testkit.Key("house")
	n := testNode(t, house)
	ctx := context.Background()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	future := testkit.NewMatch(alice, house, "gomoku", house.PublicKey(), tNow+30*86400)
	present := testkit.NewMatch(bob, house, "gomoku", house.PublicKey(), tNow-10)
	deliver(t, n, "ws://honest", future.Events[0], present.Events[0])
	if got, err := n.decide(ctx); err != nil || got != 1 {
		t.Fatalf("recorded %d duties, %v; want the present challenge's accept only", got, err)
	}
	if has, _ := n.st.OutboxHas(ctx, "accept:"+future.ID); has {
		t.Fatal("the house accepted a challenge stamped 30 days ahead")
	}
	it, ok, _ := n.st.OutboxGet(ctx, "accept:"+present.ID)
	if !ok || it.CreatedAt < tNow || it.CreatedAt > tNow+n.lim.MaxSkew {
		t.Fatalf("accept stamped %d, want within [%d, %d]", it.CreatedAt, tNow, tNow+n.lim.MaxSkew)
	}
	// bob moves first, stamped 250 s ahead (rule 5 allows 300): the
	// house's reply would be stamped 251 s ahead, beyond the 120 s skew.
	ahead := present.Move(bob, 1, "h8", tNow+250)
	deliver(t, n, "ws://honest", ahead)
	n.think = 0
	if got, _ := n.decide(ctx); got != 0 {
		t.Fatalf("recorded %d duties; want the reply deferred", got)
	}
	n.clock = func() int64 { return tNow + 200 }
	if got, _ := n.decide(ctx); got != 1 {
		t.Fatalf("recorded %d duties once the clock caught up; want the reply", got)
	}
	reply, ok, _ := n.st.OutboxGet(ctx, fmt.Sprintf("move:%s:2", present.ID))
	if !ok || int64(reply.Event.CreatedAt) > tNow+200+n.lim.MaxSkew {
		t.Fatalf("reply %v stamped %d", ok, reply.CreatedAt)
	}
}

// Item 13: a key file is read with a cap (--key /dev/zero fails at once)
// and a world-readable one is used with a warning; verify refuses a file
// over --max-bytes with the protocol's read-error line.
// Item 11: `vesper prune` deletes an expired open challenge past the
// retention, a challenge holding no valid match, and events of a match
// never stored, keeps live matches and recent orphans, and --dry-run
// counts the same without deleting.
// BenchmarkBackdatedDrip is issue 13 item 10's measurement: 1,000 accepts
// stamped between the events of a 3,000-event match, delivered one at a
// time, quotas on (their defaults). Reported per drip.
//
//	go test ./daemon -run '^$' -bench BackdatedDrip -benchtime 1000x
func BenchmarkBackdatedDrip(b *testing.B) {
	n := testNode(b, nostr.SecretKey{})
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := testkit.NewMatch(alice, bob, "gomoku", "", tNow-1_000_000)
	m.Accept(tNow - 999_000)
	m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8"}, tNow-998_000, 1000)
	for i := 0; i < 3000; i++ {
		m.Add(testkit.Key(fmt.Sprint("junk", i%900)), nostr.NewRequest(m.ID, "", tNow-998_500+int64(i)*20))
	}
	deliver(b, n, "ws://honest", m.Events...)
	drips := make([]*nostr.Event, b.N)
	for i := range drips {
		drips[i] = m.Add(testkit.Key(fmt.Sprint("drip", i)), nostr.NewAccept(m.ID, alice.PublicKey(), tNow-998_900+int64(i%30000)*30))
	}
	b.ResetTimer()
	for _, ev := range drips {
		deliver(b, n, "ws://hostile", ev)
	}
	b.StopTimer()
	b.ReportMetric(float64(n.refolds.Load()-1), "refolds")
}

// The house asks the fold before it signs: with the operator's skew limit
// off, an opponent who stamps its move 300 s ahead (the most rule 5
// allows) would have the house stamp its reply 301 s ahead, which every
// verifier receiving it now ignores (PROTOCOL.md section 2, rule 5). The
// house does not sign it, and does once its clock has caught up.
func TestHouseSignsOnlyWhatTheFoldCounts(t *testing.T) {
	house := testkit.Key("house")
	n := testNode(t, house)
	n.lim.MaxSkew = 0
	n.think = 0
	ctx := context.Background()
	bob := testkit.Key("bob")
	m := testkit.NewMatch(bob, house, "gomoku", house.PublicKey(), tNow-10)
	deliver(t, n, "ws://honest", m.Events[0])
	if got, err := n.decide(ctx); err != nil || got != 1 {
		t.Fatalf("recorded %d duties, %v; want the accept", got, err)
	}
	deliver(t, n, "ws://honest", m.Move(bob, 1, "h8", tNow+300))
	if s := n.state(m.ID); s == nil || s.Plies() != 1 {
		t.Fatal("bob's move stamped 300 s ahead was not counted")
	}
	if got, err := n.decide(ctx); err != nil || got != 0 {
		t.Fatalf("recorded %d duties, %v; want none: the reply would be stamped 301 s ahead", got, err)
	}
	n.clock = func() int64 { return tNow + 5 }
	if got, err := n.decide(ctx); err != nil || got != 1 {
		t.Fatalf("recorded %d duties once the clock moved, %v; want the reply", got, err)
	}
	if s := n.state(m.ID); s == nil || s.Plies() != 2 {
		t.Error("the house's reply was not counted by its own fold")
	}
}

// Issue 13 item 1: challenges from fresh keys do not make watched authors
// (each would add a profile filter to every relay's subscriptions); the
// two players of a match are followed once it is accepted.
func TestOnlyAcceptedPlayersAreWatched(t *testing.T) {
	n := testNode(t, testkit.Key("house"))
	ctx := context.Background()
	var junk []relay.Received
	for i := range 50 {
		ch := testkit.NewMatch(testkit.Key(fmt.Sprintf("junk%d", i)), testkit.Key("nobody"), "chess", "", tNow-100)
		junk = append(junk, relay.Received{Event: ch.Events[0], Relay: "ws://honest"})
	}
	watch, err := n.ingest(ctx, junk)
	if err != nil || len(watch) != 0 {
		t.Fatalf("50 open challenges: watch %d authors (%v); want none", len(watch), err)
	}
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	m := testkit.NewMatch(alice, bob, "chess", "", tNow-50)
	acc := m.Accept(tNow - 40)
	watch, err = n.ingest(ctx, []relay.Received{
		{Event: m.Events[0], Relay: "ws://honest"},
		{Event: acc, Relay: "ws://honest"},
	})
	if err != nil || !reflect.DeepEqual(watch, []string{alice.PublicKey(), bob.PublicKey()}) {
		t.Fatalf("an accepted match: watch %v (%v); want its two players", watch, err)
	}
	// What a start (resume, or the first backfill) watches.
	got, err := n.st.AcceptedPlayers(ctx)
	want := []string{alice.PublicKey(), bob.PublicKey()}
	slices.Sort(got)
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("players of the stored accepted matches: %d authors (%v), want the accepted match's two", len(got), err)
	}
}
