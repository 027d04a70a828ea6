package reconcile

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/nostr/relay/internal/relaytest"
	"vesper/relayd"
)

// TestSyncNIP77Auth is issue 24, item 3: against relays that read only to
// NIP-42-authenticated clients, khatru (relayd, whose RejectFilter refuses
// "auth-required:" and whose NIP-11 document says auth_required) and
// strfry (restricted reads: no NIP-11 hint, a challenge only with the
// NEG-ERR), a NIP-77 session authenticates. khatru then reconciles; strfry
// 1.x answers every set after AUTH empty (issue 34), which the NIP-77
// check sees, so it is synced by paging and still gives every event.
// Without a key, the sync says the relay wants AUTH.
func TestSyncNIP77Auth(t *testing.T) {
	author := nostr.GenerateKey()
	a, b := relaytest.OldMatch(t, author, 12), relaytest.OldMatch(t, author, 5)
	all := append(slices.Clone(a), b...)
	stats := &testrelay.StrfryStats{}
	relays := map[string]string{
		"strfry": startStrfry(t, testrelay.StrfryOptions{AuthReads: true, Seed: all, Stats: stats}),
	}
	kh := relaytest.StartRelay(t, relayd.Options{RequireAuth: true})
	relaytest.Seed(t, kh, all...)
	relays["khatru"] = kh.URL()
	for name, u := range relays {
		t.Run(name, func(t *testing.T) {
			l := newMemLocal(a[:4]...)
			opts := l.options(u)
			opts.Key = nostr.GenerateKey()
			l.open = []string{a[0].ID}
			st, got := syncInto(t, opts)
			want := relaytest.IDs(append(slices.Clone(a[4:]), b...))
			method, check := "nip77", "2/2, 17/17" // challenges, match events
			if name == "strfry" {
				method, check = "fallback", "NIP-77 lists none of the 2 events REQs read"
			}
			if s := st[0]; s.Method != method || s.Check != check || s.Error != "" || s.Fetched != len(want) {
				t.Fatalf("stats %+v, want %s fetching %d events", s, method, len(want))
			}
			if g := ids(got[st[0].Relay]); !slices.Equal(g, want) {
				t.Fatalf("fetched %d events, want the %d missing", len(g), len(want))
			}

			opts.Key = nostr.SecretKey{}
			st, got = syncInto(t, opts)
			if s := st[0]; !s.AuthRequired || len(got[s.Relay]) != 0 || !strings.Contains(s.Error, "no key") {
				t.Fatalf("without a key: stats %+v, want AuthRequired and an error that says so", s)
			}
		})
	}
	if stats.Auths.Load() == 0 || stats.NegOpens.Load() == 0 {
		t.Fatalf("strfry: %d AUTHs, %d NEG-OPENs reconciled", stats.Auths.Load(), stats.NegOpens.Load())
	}
}

// TestSyncStrfryTooManyResults: strfry refuses a NEG-OPEN matching more
// than maxSyncEvents with NEG-ERR "blocked: too many query results"; the
// sync still gets every event, and when it is by the fallback it reports
// strfry's reason. (Reads are open: after AUTH strfry's sets are empty,
// which the NIP-77 check answers before any "too many".)
func TestSyncStrfryTooManyResults(t *testing.T) {
	m := relaytest.OldMatch(t, nostr.GenerateKey(), 9)
	u := startStrfry(t, testrelay.StrfryOptions{MaxSyncEvents: 3, Seed: m})
	l := newMemLocal()
	l.open = []string{m[0].ID}
	opts := l.options(u)
	opts.Key = nostr.GenerateKey()
	st, got := syncInto(t, opts)
	s := st[0]
	if g := ids(got[s.Relay]); !slices.Equal(g, relaytest.IDs(m)) || s.Error != "" {
		t.Fatalf("stats %+v: fetched %d events, want %d", s, len(g), len(m))
	}
	if s.Method == "fallback" && !strings.Contains(s.NegError, "blocked: too many query results") {
		t.Fatalf("fallback without strfry's reason: %+v", s)
	}
}

// TestSyncStrfryMessageLimit: strfry announces max_message_length 131,072
// and drops a connection that sends more; a reconciliation of two large,
// different sets makes NEG-MSGs of negFrameLimit (200,000 bytes of hex)
// unless it keeps under the relay's announced limit. The sets here are
// ids only (the relay's events are never fetched whole: the sync sends
// them on, refused for their signatures, which is not what is tested).
func TestSyncStrfryMessageLimit(t *testing.T) {
	const n = 10007 // no cap-like size (split.go)
	base := time.Now().Add(-24 * time.Hour).Unix()
	var seedEvs []*nostr.Event
	var local []Item
	for i := range n {
		seedEvs = append(seedEvs, &nostr.Event{ID: fmt.Sprintf("%064x", 2*i+1), Kind: nostr.KindMove, CreatedAt: nostr.Timestamp(base + int64(i)),
			PubKey: strings.Repeat("1", 64), Sig: strings.Repeat("2", 128), Tags: nostr.Tags{}})
		local = append(local, Item{ID: fmt.Sprintf("%064x", 2*i+2), CreatedAt: base + int64(i)})
	}
	u := startStrfry(t, testrelay.StrfryOptions{Seed: seedEvs})
	opts := newMemLocal().options(u)
	opts.Local = func(_ context.Context, kinds []int) ([]Item, error) {
		if slices.Contains(kinds, nostr.KindMove) {
			return local, nil
		}
		return nil, nil
	}
	st, _ := syncInto(t, opts)
	if s := st[0]; s.Method != "nip77" || s.NegError != "" || s.Compared != n {
		t.Fatalf("stats %+v, want nip77 over %d ids", s, n)
	}
}
