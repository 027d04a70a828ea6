package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/relayd"
)

func startRelayWith(t *testing.T, opts relayd.Options) *relayd.Relay {
	t.Helper()
	r, err := relayd.Start(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRelaysCommand: `vesper relays` reports per relay what its NIP-11
// document says (NIP-77 offered or not, each limitation), how vesper adapts
// to it, and whether it answered; --json is one object.
func TestRelaysCommand(t *testing.T) {
	lim := startRelayWith(t, relayd.Options{Name: "limited", MaxLimit: 50, MaxFilters: 2, RestrictedWrites: true, CreatedAtUpperLimit: 60})
	plain := startRelayWith(t, relayd.Options{NoNegentropy: true})
	dead := testkit.DeadRelay(t)
	r := vesper(t, nil, nil, "relays", "--json", "--timeout", testkit.ScaleFlag(10*time.Second), "--relays", strings.Join([]string{lim.URL(), plain.URL(), dead}, ","))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var out struct {
		Relays []struct {
			URL        string `json:"url"`
			NIP11      bool   `json:"nip11"`
			Websocket  bool   `json:"websocket"`
			Name       string `json:"name"`
			Software   string `json:"software"`
			NIP77      bool   `json:"nip77"`
			Limitation struct {
				MaxLimit         int   `json:"max_limit"`
				MaxFilters       int   `json:"max_filters"`
				RestrictedWrites bool  `json:"restricted_writes"`
				Upper            int64 `json:"created_at_upper_limit"`
			} `json:"limitation"`
			Client struct {
				PageLimit  int    `json:"page_limit"`
				FiltersPer int    `json:"filters_per_req"`
				Writes     string `json:"writes"`
			} `json:"client"`
		} `json:"relays"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || len(out.Relays) != 3 {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	a, p, d := out.Relays[0], out.Relays[1], out.Relays[2]
	if !a.NIP11 || !a.Websocket || a.Name != "limited" || a.Software == "" || !a.NIP77 || a.Limitation.MaxLimit != 50 ||
		a.Limitation.MaxFilters != 2 || !a.Limitation.RestrictedWrites || a.Limitation.Upper != 60 ||
		a.Client.PageLimit != 50 || a.Client.FiltersPer != 2 || a.Client.Writes != "restricted_writes" {
		t.Errorf("limited relay: %+v", a)
	}
	if !p.NIP11 || p.NIP77 || p.Client.Writes != "yes" {
		t.Errorf("plain relay: %+v", p)
	}
	if d.NIP11 || d.Websocket {
		t.Errorf("dead relay answered: %+v", d)
	}

	r = vesper(t, nil, nil, "relays", "--relays", lim.URL())
	for _, want := range []string{"NIP-77 offered", "max_filters 2", "restricted_writes yes", "writes restricted_writes", "pages of 50"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, r.stdout)
		}
	}

	r = vesper(t, nil, nil, "relays", "--json", "--timeout", testkit.ScaleFlag(2*time.Second), "--relays", dead)
	if r.code != exitRelays || strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, `"relays"`) {
		t.Errorf("only a dead relay: exit %d, stdout %q", r.code, r.stdout)
	}
}
