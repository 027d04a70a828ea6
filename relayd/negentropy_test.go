package relayd

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip11"
	"github.com/nbd-wtf/go-nostr/nip77"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
	"github.com/nbd-wtf/go-nostr/nip77/negentropy/storage/empty"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// TestNegentropy: the relay answers NIP-77 with every event the filter
// matches, past max_limit, from either store, and lists 77 in NIP-11; with
// NoNegentropy it does neither.
func TestNegentropy(t *testing.T) {
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db, MaxLimit: 5})
			key := nostr.GenerateKey()
			var want []string
			for i := range 12 {
				ev := signed(t, key, 4422, 1_700_000_000+int64(i), "e2e4", gn.Tag{"g", "x"})
				if err := r.Publish(t.Context(), ev); err != nil {
					t.Fatal(err)
				}
				want = append(want, ev.ID)
			}
			if !supports77(t, r) {
				t.Fatal("NIP-11 does not list 77")
			}
			got := negIDs(t, r.URL(), gn.Filter{Kinds: []int{4422}})
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("NIP-77 listed %d ids, want the %d stored (max_limit 5 must not cut a reconciliation)", len(got), len(want))
			}
			// A reconciliation is no subscription: nothing stays registered.
			if n := r.Subscriptions(); n != 0 {
				t.Fatalf("%d subscriptions left after NIP-77", n)
			}
		})
	}
	t.Run("off", func(t *testing.T) {
		r := startRelay(t, Options{NoNegentropy: true})
		if supports77(t, r) {
			t.Fatal("NIP-11 lists 77 with NoNegentropy")
		}
	})
}

// negIDs lists, with a NIP-77 client that holds nothing, every id the
// relay has for f. (go-nostr's nip77.FetchIDsOnly would do, but its Relay
// races under -race.)
func negIDs(t *testing.T, url string, f gn.Filter) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(10*time.Second))
	defer cancel()
	c, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	neg := negentropy.New(empty.Empty{}, 1<<20)
	var ids []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for id := range neg.HaveNots {
			ids = append(ids, id)
		}
	}()
	go func() {
		for range neg.Haves {
		}
	}()
	open, _ := nip77.OpenEnvelope{SubscriptionID: "t", Filter: f, Message: neg.Start()}.MarshalJSON()
	if err := c.Write(ctx, ws.MessageText, open); err != nil {
		t.Fatal(err)
	}
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var arr []string
		if err := json.Unmarshal(msg, &arr); err != nil || len(arr) < 3 || arr[0] != "NEG-MSG" {
			t.Fatalf("relay answered %s", msg)
		}
		out, err := neg.Reconcile(arr[2])
		if err != nil {
			t.Fatal(err)
		}
		if out == "" {
			<-done
			return ids
		}
		next, _ := nip77.MessageEnvelope{SubscriptionID: "t", Message: out}.MarshalJSON()
		if err := c.Write(ctx, ws.MessageText, next); err != nil {
			t.Fatal(err)
		}
	}
}

func supports77(t *testing.T, r *Relay) bool {
	t.Helper()
	info, err := nip11.Fetch(t.Context(), r.URL())
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(info.SupportedNIPs, func(n any) bool { return n == float64(77) || n == 77 })
}

// TestSeed: seeded events are served like published ones, from either
// store, each once.
func TestSeed(t *testing.T) {
	for name, db := range stores(t) {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, Options{DBPath: db})
			key := nostr.GenerateKey()
			var evs []*gn.Event
			for i := range 30 {
				evs = append(evs, signed(t, key, 4422, 1_700_000_000+int64(i%7), fmt.Sprint(i), gn.Tag{"g", fmt.Sprint(i % 3)}))
			}
			if err := r.Seed(t.Context(), evs); err != nil {
				t.Fatal(err)
			}
			if err := r.Seed(t.Context(), evs[:5]); err != nil { // again: skipped
				t.Fatal(err)
			}
			if r.Count() != 30 {
				t.Fatalf("%d events, want 30", r.Count())
			}
			ch, err := r.store.QueryEvents(t.Context(), gn.Filter{Tags: gn.TagMap{"g": {"1"}}, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var got []*gn.Event
			for ev := range ch {
				got = append(got, ev)
			}
			if len(got) != 10 || !slices.IsSortedFunc(got, cmpEvents) {
				t.Fatalf("#g 1: %d events (sorted %v), want 10 newest first", len(got), slices.IsSortedFunc(got, cmpEvents))
			}
		})
	}
}
