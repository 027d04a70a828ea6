package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testrelay"
	"vesper/nostr"
	"vesper/store"
)

// reqLog is what a scripted relay without NIP-77 was asked: every REQ's
// filters, each answered with EOSE alone.
type reqLog struct {
	mu      sync.Mutex
	reqs    int
	bytes   int
	filters []gn.Filter
}

func (l *reqLog) relay(t testing.TB) string {
	return testrelay.Scripted(t, "", func() func(testrelay.Frame) []string {
		return func(f testrelay.Frame) []string {
			if f.Label != "REQ" {
				return nil
			}
			l.mu.Lock()
			defer l.mu.Unlock()
			l.reqs++
			for _, raw := range f.Raw[2:] {
				l.bytes += len(raw)
				var flt gn.Filter
				if json.Unmarshal(raw, &flt) == nil {
					l.filters = append(l.filters, flt)
				}
			}
			return []string{testrelay.EOSE(f.Sub)}
		}
	})
}

// asked are the match ids the REQs named by "#g", and whether a REQ
// asked for the match kinds since a time.
func (l *reqLog) asked() (map[string]bool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out, since := map[string]bool{}, false
	for _, f := range l.filters {
		for _, m := range f.Tags[nostr.MatchTag] {
			out[m] = true
		}
		if f.Since != nil && len(f.Tags) == 0 && !slices.Contains(f.Kinds, nostr.KindChallenge) {
			since = true
		}
	}
	return out, since
}

// fillDormant stores summaries of n matches a sync need not ask about by
// name, half of them games idle for a week, half expired challenges, and
// returns their ids.
func fillDormant(t testing.TB, st *store.Store, n int) []string {
	t.Helper()
	sums := make([]store.Summary, n)
	ids := make([]string, n)
	for i := range sums {
		ids[i] = fmt.Sprintf("%064x", i+1)
		sums[i] = store.Summary{Match: ids[i], Game: "chess", First: "a", Second: "b", Status: "in_progress",
			JSON: []byte("{}"), FoldVersion: 1, IdleSince: tNow - 7*86400}
		if i%2 == 1 {
			sums[i].Second, sums[i].Status, sums[i].IdleSince = "", "expired", 0
		}
	}
	if err := st.PutSummaries(context.Background(), sums); err != nil {
		t.Fatal(err)
	}
	return ids
}

// The fallback of a sync asks a relay about the live matches by name and
// about a fixed number of the dormant ones in turn, so that its REQs do
// not grow with the games ever abandoned (issue 38); the dormant matches'
// new events are asked for by time since the last sync, and every dormant
// match is still asked about within a rotation.
func TestSyncDormantBounded(t *testing.T) {
	ctx := context.Background()
	syncOf := func(dormant int) (*Daemon, *reqLog, []string) {
		n := testNode(t, nostr.SecretKey{})
		ids := fillDormant(t, n.st, dormant)
		live := fmt.Sprintf("%064x", 1<<40)
		if err := n.st.PutSummary(ctx, store.Summary{Match: live, Game: "chess", First: "a", Second: "b",
			Status: "in_progress", JSON: []byte("{}"), FoldVersion: 1, IdleSince: tNow - 60}); err != nil {
			t.Fatal(err)
		}
		l := &reqLog{}
		n.relays = []string{l.relay(t)}
		if err := n.st.SetSyncMark(ctx, n.relays[0], store.SyncMarkDone, tNow-600); err != nil {
			t.Fatal(err)
		}
		if err := n.st.SetSyncMark(ctx, n.relays[0], store.SyncMarkFullScan, tNow-600); err != nil {
			t.Fatal(err)
		}
		if _, err := n.SyncOnce(ctx, SyncRequest{NoNIP77: true}); err != nil {
			t.Fatal(err)
		}
		asked, _ := l.asked()
		if !asked[live] {
			t.Errorf("%d dormant: the live match was not asked about", dormant)
		}
		return n, l, ids
	}
	_, small, _ := syncOf(3 * dormantPerSync / 2)
	n, large, ids := syncOf(5 * dormantPerSync)
	if large.reqs > small.reqs || large.bytes > small.bytes {
		t.Errorf("a sync sent %d REQs (%d bytes of filters) at %d dormant matches, %d (%d bytes) at %d: it grows with them",
			large.reqs, large.bytes, 5*dormantPerSync, small.reqs, small.bytes, 3*dormantPerSync/2)
	}
	if _, since := large.asked(); !since {
		t.Error("no REQ asked for the match kinds since the last sync")
	}
	// The rotation: the next syncs go on where this one stopped, and
	// together ask about every dormant match.
	for range 4 {
		if _, err := n.SyncOnce(ctx, SyncRequest{NoNIP77: true}); err != nil {
			t.Fatal(err)
		}
	}
	seen, _ := large.asked()
	for _, id := range ids {
		if !seen[id] {
			t.Fatalf("dormant match %s not asked about in %d syncs", id, 5)
		}
	}
	// A full sync asks about every one at once.
	full := &reqLog{}
	n.relays = []string{full.relay(t)}
	if _, err := n.SyncOnce(ctx, SyncRequest{NoNIP77: true, Full: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := full.asked(); len(got) < len(ids) {
		t.Errorf("a full sync asked about %d matches, want every one of %d", len(got), len(ids))
	}
}
