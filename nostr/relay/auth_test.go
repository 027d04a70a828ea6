package relay

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/nostr/relay/internal/wire"
	"vesper/nostr/relay/limits"
)

// TestFetchStrfryRestrictedReads: strfry serves a filter by ids to anyone
// and withholds the restricted kinds from it without a word; only the
// match's filter of restricted kinds asks for AUTH. A fetch reads the
// earlier filters again once it has authenticated, so the challenge
// (found by id) is not lost.
func TestFetchStrfryRestrictedReads(t *testing.T) {
	m := relaytest.OldMatch(t, nostr.GenerateKey(), 4)
	u := startStrfry(t, testrelay.StrfryOptions{AuthReads: true, Seed: m})
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
	defer cancel()
	// The filters `vesper games` asks with: the challenges by id alone.
	filters := []gn.Filter{{IDs: []string{m[0].ID}}, {Kinds: wire.MatchKinds(), Tags: gn.TagMap{nostr.MatchTag: {m[0].ID}}}}
	got, err := FetchWith(ctx, []string{u}, filters, FetchOptions{Key: nostr.GenerateKey(), Timeout: testkit.Scale(10 * time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	var gotIDs []string
	for _, r := range got {
		gotIDs = append(gotIDs, r.Event.ID)
	}
	slices.Sort(gotIDs)
	if want := relaytest.IDs(m); !slices.Equal(gotIDs, want) {
		t.Fatalf("fetched %d events, want the match's %d with its challenge", len(gotIDs), len(want))
	}
}

// TestClientStrfryAuthReads: the client's live REQs and backfill on a
// strfry with restricted reads, refused "ERROR: auth-required: ...", are
// answered with AUTH. Without a key, the session fails saying so, and the
// relay is retried at the put-aside pace, not every MaxBackoff.
func TestClientStrfryAuthReads(t *testing.T) {
	m := relaytest.OldMatch(t, nostr.GenerateKey(), 3)
	recent := relaytest.Move(t, nostr.GenerateKey(), m[0].ID, 4, time.Now().Unix()-30)
	u := startStrfry(t, testrelay.StrfryOptions{AuthReads: true, Seed: append(slices.Clone(m), recent)})
	cfg := fastConfig(u)
	cfg.Key = nostr.GenerateKey()
	_, s := run(t, cfg)
	waitFor(t, "the recent event behind AUTH", func() bool { return s.has(gn.NormalizeURL(u), recent) })

	cfg = fastConfig(u)
	cfg.AsideBackoff = time.Hour
	c, _ := run(t, cfg)
	var st relayState
	waitFor(t, "the session refused for want of a key", func() bool {
		for _, x := range c.relayStates() {
			if strings.Contains(x.LastError, "no key is configured") {
				st = x
				return true
			}
		}
		return false
	})
	if time.Until(st.RetryAt) < 30*time.Minute {
		t.Fatalf("retried at %v, want the put-aside pace (an hour)", st.RetryAt)
	}
}

// startStrfry is testrelay.Strfry with no NIP-11 document cached for its
// address (an earlier relay on the same port had another).
func startStrfry(t *testing.T, opts testrelay.StrfryOptions) string {
	t.Helper()
	u := testrelay.Strfry(t, opts)
	limits.Forget(u)
	return u
}

// TestWatchStrfryAuthReads: on a strfry with restricted reads (no NIP-11
// hint), Watch's subscription to a match is refused "ERROR:
// auth-required: ..."; it answers the challenge and subscribes again,
// then gets the challenge, the moves, and a new move live.
func TestWatchStrfryAuthReads(t *testing.T) {
	author := nostr.GenerateKey()
	m := relaytest.OldMatch(t, author, 2)
	u := startStrfry(t, testrelay.StrfryOptions{AuthReads: true, Seed: m})
	s := newSink()
	var mu sync.Mutex
	up := false
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		Watch(ctx, []string{u}, MatchFilters(m[0].ID), WatchOptions{Timeout: testkit.Scale(10 * time.Second), Key: nostr.GenerateKey(),
			OnStatus: func(_ string, ok bool, _ error) {
				mu.Lock()
				up = up || ok
				mu.Unlock()
			}}, s.add)
	}()
	waitFor(t, "the match behind AUTH, and a live subscription", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return up && s.has(gn.NormalizeURL(u), m...)
	})
	live := relaytest.Move(t, author, m[0].ID, 3, time.Now().Unix())
	res := PublishWith(t.Context(), []string{u}, live, PublishOptions{Timeout: testkit.Scale(10 * time.Second)})
	if !res[0].OK {
		t.Fatalf("publish: %+v", res[0])
	}
	waitFor(t, "the live move", func() bool { return s.has(gn.NormalizeURL(u), live) })
	cancel()
	<-done
}
