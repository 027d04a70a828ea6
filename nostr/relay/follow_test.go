package relay

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/follow"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
	"vesper/relayd"
)

func relayListEvent(t *testing.T, key nostr.SecretKey, at int64, read, write []string) *nostr.Event {
	t.Helper()
	ev, err := nostr.NewRelayList(read, write, at)
	if err != nil {
		t.Fatal(err)
	}
	return relaytest.Sign(t, key, ev)
}

func stateOf(c *Client, u string) (relayState, bool) {
	for _, st := range c.relayStates() {
		if st.URL == u {
			return st, true
		}
	}
	return relayState{}, false
}

// TestFollowAtRunTime: a relay added while the client runs is followed
// like a configured one (stored events, then live ones, from that relay),
// and does not take part in Publish.
func TestFollowAtRunTime(t *testing.T) {
	home, away := relaytest.StartRelay(t, relayd.Options{}), relaytest.StartRelay(t, relayd.Options{})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	ch := relaytest.Sign(t, key, nostr.NewChallenge("chess", "", now-60))
	relaytest.Seed(t, away, ch)
	c, s := run(t, fastConfig(home.URL()))
	waitReady(t, c, 10*time.Second)
	if got := c.Follow(away.URL(), home.URL(), away.URL()); !slices.Equal(got, []string{relaytest.URL(away)}) {
		t.Fatalf("Follow added %v, want only %s", got, relaytest.URL(away))
	}
	waitFor(t, "the stored event from the added relay", func() bool { return s.has(relaytest.URL(away), ch) })
	mv := relaytest.Move(t, key, ch.ID, 1, now)
	relaytest.Seed(t, away, mv)
	waitFor(t, "a live event from the added relay", func() bool { return s.has(relaytest.URL(away), mv) })
	if s.has(relaytest.URL(home), ch) {
		t.Error("the configured relay delivered an event it does not have")
	}
	if st, ok := stateOf(c, relaytest.URL(away)); !ok || !st.Connected || st.Configured {
		t.Errorf("state of the added relay: %+v", st)
	}
	res := c.Publish(t.Context(), relaytest.Move(t, key, ch.ID, 2, now+1), testkit.Scale(5*time.Second))
	if len(res) != 1 || res[0].Relay != relaytest.URL(home) || !res[0].OK {
		t.Errorf("Publish went to %+v, want the configured relay only", res)
	}
	c.SetFollowed(nil)
	waitFor(t, "the unfollowed relay's connection to close", func() bool { return away.Connections() == 0 })
	if slices.Contains(c.Relays(), relaytest.URL(away)) {
		t.Errorf("Relays after SetFollowed(nil): %v", c.Relays())
	}
}

// TestFollowBeforeRun: relays added before Run start with it, and never
// hold Ready back, even when they are dead.
func TestFollowBeforeRun(t *testing.T) {
	home, away := relaytest.StartRelay(t, relayd.Options{}), relaytest.StartRelay(t, relayd.Options{})
	ev := relaytest.Move(t, nostr.GenerateKey(), "m", 1, time.Now().Unix())
	relaytest.Seed(t, away, ev)
	cfg := fastConfig(home.URL())
	cfg.BackfillBudget = time.Hour // Ready must not wait on the dead relay's budget
	c := New(cfg)
	c.Follow(away.URL(), testkit.DeadRelay(t))
	s := newSink()
	startClient(t, c, s)
	waitReady(t, c, 10*time.Second)
	waitFor(t, "the event of the relay followed before Run", func() bool { return s.has(relaytest.URL(away), ev) })
}

// TestFollowDeadRelayPutAside: a followed relay that keeps failing is put
// aside: after AsideAfter failed sessions its next try is an AsideBackoff
// away, not a MaxBackoff.
func TestFollowDeadRelayPutAside(t *testing.T) {
	home := relaytest.StartRelay(t, relayd.Options{})
	dead := gn.NormalizeURL(testkit.DeadRelay(t))
	cfg := fastConfig(home.URL())
	cfg.AsideAfter = 3
	cfg.AsideBackoff = time.Hour
	c, _ := run(t, cfg)
	c.Follow(dead)
	waitFor(t, "the dead relay to be put aside", func() bool {
		st, _ := stateOf(c, dead)
		return st.Aside
	})
	st, _ := stateOf(c, dead)
	if st.Failures != cfg.AsideAfter || st.Connected || st.LastError == "" {
		t.Errorf("state %+v, want %d failures, an error, not connected", st, cfg.AsideAfter)
	}
	// The jittered wait is drawn from the upper half of the step.
	if wait := time.Until(st.RetryAt); wait < 29*time.Minute || wait > time.Hour {
		t.Errorf("next try in %v, want about half an hour to an hour", wait)
	}
	if home, _ := stateOf(c, relaytest.URL(home)); !home.Configured || !home.Connected || home.Aside {
		t.Errorf("configured relay state %+v", home)
	}
}

// TestFollowCap: Config.MaxRelays bounds configured and followed relays
// together; SetFollowed replaces the followed set within it.
func TestFollowCap(t *testing.T) {
	rs := make([]*relayd.Relay, 4)
	for i := range rs {
		rs[i] = relaytest.StartRelay(t, relayd.Options{})
	}
	cfg := fastConfig(rs[0].URL())
	cfg.MaxRelays = 3
	c, _ := run(t, cfg)
	if got := c.Follow(rs[1].URL(), rs[2].URL(), rs[3].URL()); !slices.Equal(got, []string{relaytest.URL(rs[1]), relaytest.URL(rs[2])}) {
		t.Errorf("Follow added %v, want the first two", got)
	}
	if got := c.Relays(); len(got) != 3 {
		t.Errorf("Relays %v, want 3", got)
	}
	got := c.SetFollowed([]string{rs[3].URL(), rs[1].URL()})
	if want := []string{relaytest.URL(rs[1]), relaytest.URL(rs[3])}; !slices.Equal(got, want) {
		t.Errorf("SetFollowed: %v, want %v", got, want)
	}
	waitFor(t, "the dropped relay's connection to close", func() bool { return rs[2].Connections() == 0 })
	waitFor(t, "every followed relay connected", func() bool { return c.Connected() == 3 })
	if got := c.SetFollowed(nil); len(got) != 0 || !slices.Equal(c.Relays(), []string{relaytest.URL(rs[0])}) {
		t.Errorf("SetFollowed(nil): %v, Relays %v", got, c.Relays())
	}
	// Following again a relay just dropped: the new session waits for the
	// old one, and the relay is followed.
	c.Follow(rs[3].URL())
	waitFor(t, "the relay followed again", func() bool {
		st, _ := stateOf(c, relaytest.URL(rs[3]))
		return st.Connected
	})
}

// TestOutboxPlayerOnItsOwnRelay (issue 19): a player whose events are only
// on its own write relay, named in its relay list on the configured
// relay, is found: the client follows the relay list of a watched author,
// follow.OutboxRelays picks the write relay, Follow adds it, and the match events
// come out of the same gate.
func TestOutboxPlayerOnItsOwnRelay(t *testing.T) {
	home, own := relaytest.StartRelay(t, relayd.Options{}), relaytest.StartRelay(t, relayd.Options{})
	alice := nostr.GenerateKey()
	now := time.Now().Unix()
	list := relayListEvent(t, alice, now-100, []string{home.URL()}, []string{own.URL()})
	relaytest.Seed(t, home, list)
	ch := relaytest.Sign(t, alice, nostr.NewChallenge("chess", "", now-50))
	mv := relaytest.Move(t, alice, ch.ID, 1, now-40)
	forged := relaytest.Move(t, alice, ch.ID, 2, now-30)
	forged.Content = "e7e5" // id and signature no longer match
	relaytest.Seed(t, own, ch, mv)
	if err := own.Inject(t.Context(), forged); err != nil {
		t.Fatal(err)
	}

	cfg := fastConfig(home.URL())
	cfg.RelayLists = true
	c, s := run(t, cfg)
	c.WatchAuthors(alice.PublicKey())
	waitFor(t, "the relay list", func() bool { return s.has(relaytest.URL(home), list) })
	r, _ := s.get(relaytest.URL(home), list.ID)
	picked := follow.OutboxRelays([]*nostr.Event{r.Event}, follow.OutboxOptions{Exclude: c.Relays(), AllowLocal: true})
	if !slices.Equal(picked, []string{relaytest.URL(own)}) {
		t.Fatalf("follow.OutboxRelays %v, want the player's write relay", picked)
	}
	if len(follow.OutboxRelays([]*nostr.Event{r.Event}, follow.OutboxOptions{Exclude: c.Relays()})) != 0 {
		t.Error("a loopback relay picked without AllowLocal")
	}
	c.Follow(picked...)
	waitFor(t, "the player's events from its own relay", func() bool { return s.has(relaytest.URL(own), ch, mv) })
	waitFor(t, "the forged event refused", func() bool { return s.rejected(wire.RejectBadID)+s.rejected(wire.RejectBadSignature) > 0 })
	if s.has(relaytest.URL(own), forged) {
		t.Error("a forged event from a followed relay was delivered")
	}
}

func TestOutboxRelays(t *testing.T) {
	a, b, c := nostr.GenerateKey(), nostr.GenerateKey(), nostr.GenerateKey()
	mk := func(k nostr.SecretKey, at int64, write ...string) *nostr.Event {
		return relayListEvent(t, k, at, nil, write)
	}
	tests := []struct {
		name  string
		lists []*nostr.Event
		opts  follow.OutboxOptions
		want  []string
	}{
		{"first PerPlayer of each list", []*nostr.Event{mk(a, 1, "wss://a1.example", "wss://a2.example", "wss://a3.example")},
			follow.OutboxOptions{PerPlayer: 2}, []string{"wss://a1.example", "wss://a2.example"}},
		{"shared relays first, deduplicated", []*nostr.Event{
			mk(a, 1, "wss://a1.example", "wss://shared.example"),
			mk(b, 1, "wss://b1.example", "wss://shared.example"),
			mk(c, 1, "wss://shared.example")},
			follow.OutboxOptions{}, []string{"wss://shared.example", "wss://a1.example", "wss://b1.example"}}, // a1 and b1 in either order
		{"excluded relays count for the player, are not returned", []*nostr.Event{mk(a, 1, "wss://home.example", "wss://a1.example", "wss://a2.example")},
			follow.OutboxOptions{PerPlayer: 2, Exclude: []string{"wss://home.example/"}}, []string{"wss://a1.example"}},
		{"latest list only", []*nostr.Event{mk(a, 1, "wss://old.example"), mk(a, 2, "wss://new.example")},
			follow.OutboxOptions{}, []string{"wss://new.example"}},
		{"local relays dropped, next one taken", []*nostr.Event{mk(a, 1, "ws://127.0.0.1:7447", "ws://192.168.1.2", "wss://a1.example")},
			follow.OutboxOptions{PerPlayer: 1}, []string{"wss://a1.example"}},
		{"local relays kept when allowed", []*nostr.Event{mk(a, 1, "ws://127.0.0.1:7447")},
			follow.OutboxOptions{AllowLocal: true}, []string{"ws://127.0.0.1:7447"}},
		{"global cap keeps the most shared first", []*nostr.Event{
			mk(a, 1, "wss://x.example", "wss://shared.example"),
			mk(b, 1, "wss://shared.example")},
			follow.OutboxOptions{Max: 2}, []string{"wss://shared.example", "wss://x.example"}},
		{"other kinds ignored", []*nostr.Event{relaytest.Move(t, a, "m", 1, 1)}, follow.OutboxOptions{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := follow.OutboxRelays(tt.lists, tt.opts)
			if len(got) > 1 && len(got) == len(tt.want) && got[0] == tt.want[0] {
				// Players of equal priority take their turns in pubkey
				// order, which the random keys decide.
				slices.Sort(got[1:])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
	lists := []*nostr.Event{relayListEvent(t, a, 1, []string{"wss://r1.example", "ws://127.0.0.1:1", "wss://r2.example"}, []string{"wss://w.example"})}
	if got := follow.InboxRelays(lists, a.PublicKey(), 2, false); !slices.Equal(got, []string{"wss://r1.example", "wss://r2.example"}) {
		t.Errorf("InboxRelays: %v", got)
	}
	if got := follow.InboxRelays(lists, b.PublicKey(), 2, false); got != nil {
		t.Errorf("follow.InboxRelays of a player without a list: %v", got)
	}
}

// TestFollowCapLogsOnce (issue 30, item 7): past the cap, a refollow with
// thousands of wanted relays writes one line, not one per relay (3.6 MB of
// log per new relay list, before).
func TestFollowCapLogsOnce(t *testing.T) {
	var buf testkit.Buffer
	cfg := fastConfig("ws://home.example")
	cfg.MaxRelays = 3
	cfg.Logger = slog.New(slog.NewTextHandler(&buf, nil))
	c := New(cfg) // not running: nothing is dialed
	var want []string
	for i := range 5000 {
		want = append(want, fmt.Sprintf("wss://r%d.example", i))
	}
	for i := range 4 {
		if got := c.SetFollowed(want[i:]); len(got) != 2 {
			t.Fatalf("followed %d relays, want 2 within the cap", len(got))
		}
	}
	if n := strings.Count(buf.String(), "past the cap"); n != 4 {
		t.Errorf("%d cap lines for 4 refollows, want one each (%d bytes of log)", n, len(buf.String()))
	}
}
