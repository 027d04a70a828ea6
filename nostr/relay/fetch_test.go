package relay

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
	"vesper/relayd"
)

func TestFetchPagesAndDedupes(t *testing.T) {
	a := relaytest.StartRelay(t, relayd.Options{MaxLimit: 5, HideLimits: true})
	b := relaytest.StartRelay(t, relayd.Options{MaxLimit: 3})
	key := nostr.GenerateKey()
	base := time.Now().Unix() - 100
	var all []*nostr.Event
	for i := range 20 {
		ev := relaytest.Move(t, key, "m", i+1, base+int64(i))
		all = append(all, ev)
		switch {
		case i < 8:
			relaytest.Seed(t, a, ev)
		case i < 14:
			relaytest.Seed(t, a, ev)
			relaytest.Seed(t, b, ev)
		default:
			relaytest.Seed(t, b, ev)
		}
	}
	got, err := Fetch(t.Context(), []string{a.URL(), b.URL(), testkit.DeadRelay(t)}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, testkit.Scale(5*time.Second))
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("err: got %v, want the dead relay's failure", err)
	}
	var ids, want []string
	for _, r := range got {
		ids = append(ids, r.Event.ID)
	}
	for _, ev := range all {
		want = append(want, ev.ID)
	}
	if !slices.Equal(ids, want) {
		t.Errorf("got %d events %v,\nwant %d in created_at order %v", len(ids), ids, len(want), want)
	}
}

func TestFetchLimit(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 2, HideLimits: true})
	key := nostr.GenerateKey()
	base := time.Now().Unix() - 100
	for i := range 10 {
		relaytest.Seed(t, r, relaytest.Move(t, key, "m", i+1, base+int64(i)))
	}
	got, err := Fetch(t.Context(), []string{r.URL()}, []gn.Filter{{Kinds: []int{nostr.KindMove}, Limit: 5}}, testkit.Scale(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0].Event.CreatedAt != gn.Timestamp(base+5) {
		t.Fatalf("got %d events from %v, want the 5 newest", len(got), got[0].Event.CreatedAt)
	}
}

func TestFetchMatch(t *testing.T) {
	r := relaytest.StartRelay(t, relayd.Options{MaxLimit: 4})
	alice, bob := nostr.GenerateKey(), nostr.GenerateKey()
	now := time.Now().Unix()
	ch := relaytest.Sign(t, alice, nostr.NewChallenge("chess", "", now-100))
	other := relaytest.Sign(t, alice, nostr.NewChallenge("gomoku", "", now-99))
	want := []*nostr.Event{ch, relaytest.Sign(t, bob, nostr.NewAccept(ch.ID, alice.PublicKey(), now-90))}
	for i := range 9 {
		want = append(want, relaytest.Move(t, alice, ch.ID, i+1, now-80+int64(i)))
	}
	want = append(want, relaytest.Sign(t, alice, nostr.NewRequest(ch.ID, "", now-10)))
	relaytest.Seed(t, r, want...)
	relaytest.Seed(t, r, other, relaytest.Move(t, bob, other.ID, 1, now-50))
	got, err := Fetch(t.Context(), []string{r.URL()}, MatchFilters(ch.ID), testkit.Scale(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i, ev := range want {
		if got[i].Event.ID != ev.ID || got[i].Relay != relaytest.URL(r) {
			t.Errorf("event %d: got %s from %s, want %s", i, got[i].Event.ID, got[i].Relay, ev.ID)
		}
	}
}

// rawRelay answers every REQ with the given EVENT payloads, verbatim, then
// EOSE: a relay that serves what khatru never would (malformed JSON forms,
// unrequested kinds), and that ignores since, until and limit.
func rawRelay(t *testing.T, events ...string) string {
	t.Helper()
	return testrelay.Scripted(t, "", func() func(testrelay.Frame) []string {
		return func(f testrelay.Frame) []string {
			if f.Label != "REQ" {
				return nil
			}
			var out []string
			for _, ev := range events {
				out = append(out, fmt.Sprintf(`["EVENT",%q,%s]`, f.Sub, ev))
			}
			return append(out, testrelay.EOSE(f.Sub))
		}
	})
}

func TestStrictParsing(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	good := relaytest.Move(t, key, "m", 1, now)
	empty := relaytest.Sign(t, key, &nostr.Event{Kind: nostr.KindMove, CreatedAt: gn.Timestamp(now - 1), Tags: nostr.Tags{{"g", "m"}}})
	profile := relaytest.Sign(t, key, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: gn.Timestamp(now - 2), Content: "{}"})
	js := func(ev *nostr.Event) string { return string(nostr.MarshalEvent(ev)) }
	ts := `"created_at":` + strconvI(now-1)
	tests := []struct {
		name   string
		raw    string
		reason string // "" = delivered
	}{
		{"well formed", js(good), ""},
		{"content null (go-nostr reads it as empty)", strings.Replace(js(empty), `"content":""`, `"content":null`, 1), wire.RejectMalformed},
		{"created_at with a fraction", strings.Replace(js(empty), ts, ts+".0", 1), wire.RejectMalformed},
		{"uppercase id", strings.Replace(js(empty), empty.ID, strings.ToUpper(empty.ID), 1), wire.RejectMalformed},
		{"tag value not a string", strings.Replace(js(empty), `["g","m"]`, `["g",1]`, 1), wire.RejectMalformed},
		{"not an object", `[1,2]`, wire.RejectMalformed},
		// The envelope splitter leaves the event's bytes to ParseEvent.
		{"not JSON", strings.Replace(js(empty), `"content":""`, `"content":nul`, 1), wire.RejectMalformed},
		{"lone surrogate", strings.Replace(js(empty), `"content":""`, `"content":"\ud800"`, 1), wire.RejectMalformed},
		{"unrequested kind", js(profile), wire.RejectUnrequested},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSink()
			u := rawRelay(t, tt.raw)
			got, err := FetchWith(t.Context(), []string{u}, []gn.Filter{{Kinds: []int{nostr.KindMove}}},
				FetchOptions{Timeout: testkit.Scale(5 * time.Second), OnReject: s.onReject})
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason == "" {
				if len(got) != 1 {
					t.Fatalf("got %d events, want it delivered", len(got))
				}
				return
			}
			if len(got) != 0 {
				t.Errorf("delivered %s", nostr.MarshalEvent(got[0].Event))
			}
			if s.rejected(tt.reason) == 0 {
				t.Errorf("rejections %v, want %s", s.rejects, tt.reason)
			}
		})
	}
}

// A relay that ignores until must not make the pager loop.
func TestPagerEndsOnRelayIgnoringUntil(t *testing.T) {
	key := nostr.GenerateKey()
	now := time.Now().Unix()
	var raws []string
	for i := range 5 {
		raws = append(raws, string(nostr.MarshalEvent(relaytest.Move(t, key, "m", i+1, now-int64(i)))))
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(30*time.Second))
	defer cancel()
	got, err := FetchWith(ctx, []string{rawRelay(t, raws...)}, []gn.Filter{{Kinds: []int{nostr.KindMove}}}, FetchOptions{PageLimit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("got %d events, want 5", len(got))
	}
}
