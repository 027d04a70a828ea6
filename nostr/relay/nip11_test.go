package relay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/limits"
	"vesper/nostr/relay/reconcile"
	"vesper/relayd"
)

// TestSmallMaxLimitAndMaxFilters (issue 19): a relay that serves 3 events
// per query and takes one filter per REQ, and refuses a REQ with more, is
// read whole by the client (live subscriptions split, backfill paged), by
// Fetch and by reconcile.Sync's fallback, without a REQ it refuses.
func TestSmallMaxLimitAndMaxFilters(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 3, MaxFilters: 1})
	key := nostr.GenerateKey()
	base := time.Now().Unix() - 600
	var evs []*nostr.Event
	var chs []*nostr.Event
	for i := range 7 {
		ch := relaytest.Sign(t, key, nostr.NewChallenge("chess", "", base+int64(i)))
		chs = append(chs, ch)
		evs = append(evs, ch, relaytest.Move(t, key, ch.ID, 1, base+int64(i)+1), relaytest.Move(t, key, ch.ID, 2, base+int64(i)+2))
	}
	relaytest.Seed(t, r, evs...)

	cfg := fastConfig(r.URL())
	cfg.RelayLists = true
	c, s := run(t, cfg)
	waitFor(t, "every event through the client", func() bool { return s.has(relaytest.URL(r), evs...) })
	// The list is stored before the author is watched: with one filter per
	// REQ the relay may leave no subscription for profiles, which are then
	// fetched when an author is first watched, and a list stored after
	// that fetch would wait for the next connect.
	list := relayListEvent(t, key, base, []string{r.URL()}, []string{r.URL()})
	relaytest.Seed(t, r, list)
	c.WatchAuthors(key.PublicKey())
	waitFor(t, "the relay list", func() bool { return s.has(relaytest.URL(r), list) })
	live := relaytest.Move(t, key, chs[0].ID, 3, base+100)
	relaytest.Seed(t, r, live)
	waitFor(t, "a live move", func() bool { return s.has(relaytest.URL(r), live) })

	got, err := FetchWith(t.Context(), []string{r.URL()}, MatchFilters(chs[3].ID), FetchOptions{Timeout: testkit.Scale(5 * time.Second)})
	if err != nil || len(got) != 3 {
		t.Errorf("Fetch: %d events, %v; want 3", len(got), err)
	}
	out := make(chan Received, 100)
	stats, err := reconcile.Sync(t.Context(), reconcile.Options{Relays: []string{r.URL()}, NoNIP77: true,
		Local:       func(context.Context, []int) ([]reconcile.Item, error) { return nil, nil },
		Open:        func(context.Context) ([]string, error) { return nil, nil },
		Known:       func(context.Context, []string) (map[string]bool, error) { return map[string]bool{}, nil },
		DialTimeout: testkit.Scale(5 * time.Second)}, out)
	if err != nil || stats[0].Error != "" || stats[0].Fetched != len(evs)+1 {
		t.Errorf("Sync: %+v %v, want %d events", stats, err, len(evs)+1)
	}
	if n := r.FilterRefusals(); n != 0 {
		t.Errorf("the relay refused %d REQs for max_filters", n)
	}
	if q := r.Queries(); q < int64(len(evs)/3) {
		t.Errorf("%d queries: the client cannot have paged", q)
	}
}

// TestAuthFirst: on a relay whose NIP-11 document says auth_required, the
// client, Fetch and PublishWith authenticate before their first query or
// event, so nothing is refused and sent again.
func TestAuthFirst(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{RequireAuth: true})
	key := nostr.GenerateKey()
	ev := relaytest.Move(t, key, "m", 1, time.Now().Unix())
	res := PublishWith(t.Context(), []string{r.URL()}, ev, PublishOptions{Timeout: testkit.Scale(5 * time.Second), Key: key})
	if !res[0].OK || r.Writes() != 1 {
		t.Fatalf("publish: %+v with %d EVENTs sent, want accepted at the first", res[0], r.Writes())
	}
	got, err := FetchWith(t.Context(), []string{r.URL()}, []gn.Filter{{IDs: []string{ev.ID}}}, FetchOptions{Timeout: testkit.Scale(5 * time.Second), Key: key})
	if err != nil || len(got) != 1 {
		t.Fatalf("fetch: %v %v", got, err)
	}
	cfg := fastConfig(r.URL())
	cfg.Key = key
	c, s := run(t, cfg)
	waitFor(t, "the event behind AUTH", func() bool { return s.has(relaytest.URL(r), ev) })
	second := relaytest.Move(t, key, "m", 2, time.Now().Unix())
	if res := c.Publish(t.Context(), second, testkit.Scale(5*time.Second)); !res[0].OK || r.Writes() != 2 {
		t.Errorf("client publish: %+v with %d EVENTs sent in all, want 2", res[0], r.Writes())
	}
}

// TestPublishSkipsByNIP11: restricted_writes is skipped unless the relay is
// marked as one this key may write to; an event outside the relay's
// created_at limits is not sent; each skip says why, and nothing reaches
// the relay.
func TestPublishSkipsByNIP11(t *testing.T) {
	restricted := relaytest.StartRelay(t, relayd.Options{RestrictedWrites: true})
	window := relaytest.StartRelay(t, relayd.Options{CreatedAtLowerLimit: 3600, CreatedAtUpperLimit: 60})
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	tests := []struct {
		name   string
		relay  *relayd.Relay
		at     int64
		may    bool
		skip   string // prefix of PublishResult.Skipped; "" means accepted
		writes int64  // EVENTs the relay has seen after this case
	}{
		{"restricted_writes", restricted, now, false, "restricted_writes", 0},
		{"restricted_writes, marked writable", restricted, now, true, "", 1},
		{"too far in the future", window, now + 600, false, "created_at_upper_limit 60", 0},
		{"too old", window, now - 7200, false, "created_at_lower_limit 3600", 0},
		{"inside the window", window, now, false, "", 1},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := PublishOptions{Timeout: testkit.Scale(5 * time.Second), Key: key}
			if tt.may {
				opts.MayWrite = []string{tt.relay.URL() + "/"}
			}
			res := PublishWith(t.Context(), []string{tt.relay.URL()}, relaytest.Move(t, key, "m", i+1, tt.at), opts)[0]
			if tt.skip == "" {
				if !res.OK || res.Skipped != "" {
					t.Errorf("got %+v, want accepted", res)
				}
			} else if !strings.HasPrefix(res.Skipped, tt.skip) || !errors.Is(res.Err, ErrWriteRestricted) || res.OK {
				t.Errorf("got %+v, want skipped %q...", res, tt.skip)
			}
			if got := tt.relay.Writes(); got != tt.writes {
				t.Errorf("the relay saw %d EVENTs, want %d", got, tt.writes)
			}
		})
	}
	// The client's own publications skip the same way, on its connections.
	cfg := fastConfig(restricted.URL(), window.URL())
	cfg.Key = key
	c, _ := run(t, cfg)
	res := c.Publish(t.Context(), relaytest.Move(t, key, "m", 9, now+600), testkit.Scale(5*time.Second))
	if res[0].Skipped != "restricted_writes" || !strings.HasPrefix(res[1].Skipped, "created_at_upper_limit") {
		t.Errorf("client publish: %+v", res)
	}
}

func TestCreatedAtRefusal(t *testing.T) {
	const now = 1_800_000_000
	tests := []struct {
		name         string
		lower, upper int64
		at           int64
		refused      bool
	}{
		{"no limits", 0, 0, 0, false},
		{"spans: inside", 3600, 60, now - 3600, false},
		{"spans: too old", 3600, 60, now - 3601, true},
		{"spans: ahead within", 3600, 60, now + 60, false},
		{"spans: too far ahead", 3600, 60, now + 61, true},
		{"unix times: inside", 1_700_000_000, 1_900_000_000, now, false},
		{"unix times: before", 1_700_000_000, 0, 1_699_999_999, true},
		{"unix times: after", 0, 1_900_000_000, 1_900_000_001, true},
		{"negative limits ignored", -5, -5, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := createdAtRefusal(tt.lower, tt.upper, tt.at, now) != ""; got != tt.refused {
				t.Errorf("refused %v, want %v", got, tt.refused)
			}
		})
	}
}

// TestInspect: what `vesper relays` shows: the document's fields, NIP-77,
// each limitation and how the client adapts, and whether the relay
// answered at all.
func TestInspect(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{Name: "test relay", MaxLimit: 7, MaxFilters: 2, MaxSubscriptions: 9,
		RestrictedWrites: true, CreatedAtUpperLimit: 60})
	plain := relaytest.StartRelay(t, relayd.Options{NoNegentropy: true})
	dead := testkit.DeadRelay(t)
	got := Inspect(t.Context(), []string{r.URL(), plain.URL(), dead}, InspectOptions{Timeout: testkit.Scale(3 * time.Second)})
	if len(got) != 3 {
		t.Fatalf("%d answers", len(got))
	}
	a := got[0]
	l := a.Limitation
	if !a.NIP11 || a.Name != "test relay" || !strings.Contains(a.Software, "khatru") || !a.NIP77 ||
		l.MaxLimit != 7 || l.MaxFilters != 2 || l.MaxSubscriptions != 9 || !l.RestrictedWrites || l.CreatedAtUpperLimit != 60 {
		t.Errorf("relay: %+v", a)
	}
	if a.Client.PageLimit != 7 || !a.Client.ShortIsLast || a.Client.FiltersPer != 2 || a.Client.LiveSubs != 5 ||
		a.Client.Writes != "restricted_writes" || !a.Websocket || a.Probe != "eose" {
		t.Errorf("adapted: %+v, websocket %v %q", a.Client, a.Websocket, a.Probe)
	}
	if p := got[1]; !p.NIP11 || p.NIP77 || p.Client.Writes != "yes" || p.Client.FiltersPer != limits.Of(limits.Info{}).MaxFilters || !p.Websocket {
		t.Errorf("plain relay: %+v", p)
	}
	if d := got[2]; d.NIP11 || d.Websocket || d.NIP11Error == "" || d.WebsocketError == "" {
		t.Errorf("dead relay: %+v", d)
	}
}

// TestAuthFirstOnAReusedPort: a relay started on the port of one that just
// closed is read by its own NIP-11 document, not the cached one of the
// relay before it (the CI failure of TestAuthFirst: a relay without
// auth_required had held the port, and the publication went out before
// AUTH).
func TestAuthFirstOnAReusedPort(t *testing.T) {
	key := nostr.GenerateKey()
	open := relaytest.StartRelay(t, relayd.Options{})
	addr := strings.TrimPrefix(open.URL(), "ws://")
	if res := PublishWith(t.Context(), []string{open.URL()}, relaytest.Move(t, key, "m", 1, time.Now().Unix()), PublishOptions{Timeout: testkit.Scale(5 * time.Second), Key: key}); !res[0].OK {
		t.Fatalf("publish to the open relay: %+v", res[0])
	}
	open.Close()
	r := relaytest.StartRelay(t, relayd.Options{RequireAuth: true, Listen: addr})
	ev := relaytest.Move(t, key, "m", 2, time.Now().Unix())
	res := PublishWith(t.Context(), []string{r.URL()}, ev, PublishOptions{Timeout: testkit.Scale(5 * time.Second), Key: key})
	if !res[0].OK || r.Writes() != 1 {
		t.Fatalf("publish: %+v with %d EVENTs sent, want accepted at the first", res[0], r.Writes())
	}
}
