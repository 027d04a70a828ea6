package interop_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/conformance/interop"
	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/relayd"
)

// negResult is what negentropy.mjs reports.
type negResult struct {
	Have      []string `json:"have"`
	Need      []string `json:"need"`
	Fetched   []string `json:"fetched"`
	Published []string `json:"published"`
	After     struct {
		Have []string `json:"have"`
		Need []string `json:"need"`
	} `json:"after"`
	Error *struct {
		Label  string  `json:"label"`
		Reason *string `json:"reason"`
	} `json:"error"`
}

// runNegentropy runs nostr-tools' NegentropySync (negentropy.mjs) against
// url, holding events. The deadline only stops a client that waits
// forever, as nostr-tools did on khatru's NEG-ERROR; its stderr, every
// message the relay sent the reconciliation, says what came instead.
func runNegentropy(t *testing.T, url string, f gn.Filter, events []*gn.Event, queryFirst bool) negResult {
	t.Helper()
	node := interop.NodeOrSkip(t)
	if events == nil {
		events = []*gn.Event{} // a JSON array, not null
	}
	in, err := json.Marshal(map[string]any{"url": url, "filter": f, "events": events, "query_first": queryFirst})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), testkit.Scale(2*time.Minute))
	defer cancel()
	cmd := exec.CommandContext(ctx, node, interop.Script("negentropy.mjs"))
	cmd.Dir = interop.Dir()
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("negentropy.mjs: %v\nstderr:\n%s", err, stderr.String())
	}
	var res negResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("negentropy.mjs printed %q: %v\nstderr:\n%s", stdout.String(), err, stderr.String())
	}
	return res
}

func startRelay(t *testing.T, opts relayd.Options) *relayd.Relay {
	t.Helper()
	r, err := relayd.Start(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func ids(evs []*gn.Event) []string {
	out := make([]string, 0, len(evs))
	for _, ev := range evs {
		out = append(out, ev.ID)
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	if s == nil {
		s = []string{}
	}
	return s
}

// TestNostrToolsNegentropy: nostr-tools 2.25.2 reconciles with the relay
// `vesper relay` runs (its public limits) over NIP-77 both ways: it is told
// exactly the events only the relay has and exactly those only it has, the
// events it fetches verify, the relay accepts those it publishes, and a
// second reconciliation finds nothing left. Events of another kind, which
// the filter leaves out, are in neither set.
func TestNostrToolsNegentropy(t *testing.T) {
	for name, db := range map[string]string{"memory": "", "sqlite": t.TempDir() + "/relay.db"} {
		t.Run(name, func(t *testing.T) {
			r := startRelay(t, relayd.Options{DBPath: db, MaxLimit: 5, Limits: relayd.PublicLimits()})
			alice, bob := nostr.GenerateKey(), nostr.GenerateKey()
			t0 := int64(1_760_000_000)
			sign := func(key nostr.SecretKey, kind int, at int64, content string) *gn.Event {
				ev := &gn.Event{Kind: kind, CreatedAt: gn.Timestamp(at), Content: content, Tags: gn.Tags{{"g", "m"}}}
				if err := key.Sign(ev); err != nil {
					t.Fatal(err)
				}
				return ev
			}
			var relayOnly, clientOnly, both []*gn.Event
			for i := range 12 { // past max_limit: a reconciliation is not a page
				relayOnly = append(relayOnly, sign(alice, nostr.KindMove, t0+int64(i), "r"+string(rune('a'+i))))
			}
			for i := range 4 {
				clientOnly = append(clientOnly, sign(bob, nostr.KindMove, t0+int64(i), "c"+string(rune('a'+i))))
			}
			for i := range 3 {
				both = append(both, sign(alice, nostr.KindMove, t0+100+int64(i), "b"+string(rune('a'+i))))
			}
			other := sign(alice, nostr.KindChallenge, t0, `{"game":"chess"}`)
			for _, ev := range append(append(slices.Clone(relayOnly), both...), other) {
				if err := r.Publish(t.Context(), ev); err != nil {
					t.Fatal(err)
				}
			}
			res := runNegentropy(t, r.URL(), gn.Filter{Kinds: []int{nostr.KindMove}}, append(slices.Clone(clientOnly), both...), false)
			if res.Error != nil {
				t.Fatalf("reconciliation ended on %s %v", res.Error.Label, res.Error.Reason)
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"need (only the relay has)", res.Need, ids(relayOnly)},
				{"fetched", res.Fetched, ids(relayOnly)},
				{"have (only the client has)", res.Have, ids(clientOnly)},
				{"published", res.Published, ids(clientOnly)},
				{"have after", res.After.Have, []string{}},
				{"need after", res.After.Need, []string{}},
			} {
				if got := sorted(c.got); !slices.Equal(got, c.want) {
					t.Errorf("%s: got %d ids %v, want %d %v", c.what, len(got), got, len(c.want), c.want)
				}
			}
			for _, ev := range clientOnly {
				if !r.Has(ev.ID) {
					t.Errorf("relay lacks %s after nostr-tools published it", ev.ID)
				}
			}
		})
	}
}

// TestNostrToolsNegErr: when the relay refuses a reconciliation, nostr-tools
// gets NEG-ERR with the relay's reason and its NegentropySync ends (with
// khatru's NEG-ERROR it waited forever): a relay that refuses NIP-77 for a
// filter, and `vesper relay`'s per-connection request limit spent by a REQ
// just before.
func TestNostrToolsNegErr(t *testing.T) {
	for _, tt := range []struct {
		name       string
		opts       relayd.Options
		queryFirst bool
		reason     string
	}{
		{"refused", relayd.Options{RefuseNegentropy: "blocked: this filter is too broad"}, false, "blocked: this filter is too broad"},
		{"rate-limited", relayd.Options{Limits: relayd.Limits{ReqsPerMinute: 1}}, true, "rate-limited: "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := startRelay(t, tt.opts)
			res := runNegentropy(t, r.URL(), gn.Filter{Kinds: []int{nostr.KindMove}}, nil, tt.queryFirst)
			if res.Error == nil {
				t.Fatalf("reconciled (%+v), want NEG-ERR", res)
			}
			if res.Error.Label != "NEG-ERR" || res.Error.Reason == nil || !strings.HasPrefix(*res.Error.Reason, tt.reason) {
				t.Fatalf("ended on %q %v, want NEG-ERR %q...", res.Error.Label, res.Error.Reason, tt.reason)
			}
		})
	}
}
