package reconcile

import (
	"fmt"
	"slices"
	"testing"

	"vesper/internal/testrelay"
	"vesper/nostr"
)

// TestSyncCheckedRelays is issue 34: against khatru v0.19.1 on its stock
// stores as operators run it (lmdb with MaxLimit 500, 100 and 20, also
// announced as max_limit, with and without NIP-42 AUTH on every read;
// slicestore at its stock 500; badger stock, and with MaxLimit 500) and a
// relay whose NIP-77 sets drop 5% of
// their ids at random, a 40-match season syncs whole into an empty store,
// and after downtime whole matches backdated into the season are fetched
// too: every event is stored once (syncStore) and every match folds as
// verify folds the relay's events (checkUnion). lmdb cuts its NIP-77 sets
// a little below its cap, where no size rule sees it; the NIP-77 check
// does, and the relay is paged instead.
func TestSyncCheckedRelays(t *testing.T) {
	type variant struct {
		name string
		o    testrelay.KhatruOptions
		// method is the sync's, "" for either: lmdb's cut depends on how
		// the season's kinds fall in its index scans.
		method string
	}
	var vs []variant
	for _, auth := range []bool{false, true} {
		for _, limit := range []int{500, 100, 20} {
			vs = append(vs, variant{fmt.Sprintf("lmdb-%d-auth=%v", limit, auth), testrelay.KhatruOptions{Store: "lmdb", StoreMaxLimit: limit, MaxLimit: limit, Auth: auth}, ""})
		}
	}
	vs = append(vs,
		variant{"slice", testrelay.KhatruOptions{}, "nip77"},
		variant{"slice-auth", testrelay.KhatruOptions{Auth: true}, "nip77"},
		variant{"badger", testrelay.KhatruOptions{Store: "badger"}, "nip77"},
		variant{"badger-500", testrelay.KhatruOptions{Store: "badger", StoreMaxLimit: 500, MaxLimit: 500}, ""},
		variant{"drop5", testrelay.KhatruOptions{StoreMaxLimit: 1 << 20, NegDrop: 0.05}, "fallback"},
	)
	if testing.Short() {
		// The race step (-short): one of each kind of relay.
		vs = slices.DeleteFunc(vs, func(v variant) bool {
			return !slices.Contains([]string{"lmdb-100-auth=true", "slice", "badger-500", "drop5"}, v.name)
		})
	}
	first, late := season(t, 0, 40), season(t, 40, 12)
	for _, v := range vs {
		t.Run(v.name, func(t *testing.T) {
			r := startKhatru(t, v.o)
			if err := r.Store(t.Context(), first...); err != nil {
				t.Fatal(err)
			}
			l := newMemLocal()
			opts := func() Options {
				o := l.options(r.URL)
				if v.o.Auth {
					o.Key = nostr.GenerateKey()
				}
				return o
			}
			st := syncStore(t, l, opts())
			t.Logf("first sync: %s, check %q", statLine(st), st.Check)
			if st.Error != "" || st.Missing != 0 || (v.method != "" && st.Method != v.method) {
				t.Fatalf("first sync: %s, want %q with no error", statLine(st), v.method)
			}
			checkUnion(t, l, first)
			if err := r.Store(t.Context(), late...); err != nil {
				t.Fatal(err)
			}
			st = syncStore(t, l, opts())
			t.Logf("after downtime: %s, check %q", statLine(st), st.Check)
			if st.Error != "" || st.Missing != 0 || st.Fetched != len(followed(late)) {
				t.Fatalf("after downtime: %s, want the %d late events", statLine(st), len(followed(late)))
			}
			checkUnion(t, l, append(first, late...))
		})
	}
}
