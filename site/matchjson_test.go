package site

import (
	"encoding/json"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// A stub (an oversized move stored without its body, issue 13 item 5) is
// listed as ignored in the summary of match.json but never republished
// among its events, whose bodies must verify (PROTOCOL.md section 6).
func TestMatchJSONLeavesOutStubs(t *testing.T) {
	const t0 = 1_790_000_000
	m := testkit.NewMatch(testkit.Key("a"), testkit.Key("b"), "chess", "", t0)
	m.Accept(t0 + 10)
	m.Move(m.A, 1, "e2e4", t0+20)
	big := m.Move(m.B, 2, "e7e5"+strings.Repeat(" ", nostr.MaxEventSize), t0+30)
	evs := append([]*nostr.Event(nil), m.Events...)
	stub := match.Stub(big)
	if stub == nil {
		t.Fatal("no stub for an oversized move")
	}
	evs[len(evs)-1] = stub
	s, err := match.Fold(m.ID, evs, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Events  []nostr.Event `json:"events"`
		Summary match.Summary `json:"summary"`
	}
	if err := json.Unmarshal(matchJSON(s, nil, t0+60), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != 3 {
		t.Fatalf("%d events in match.json, want the 3 with their bodies", len(got.Events))
	}
	for _, ev := range got.Events {
		if ev.ID == big.ID {
			t.Fatal("the stub was republished")
		}
		if err := nostr.Verify(&ev); err != nil {
			t.Errorf("event %s does not verify: %v", ev.ID, err)
		}
	}
	if len(got.Summary.Ignored) != 1 || got.Summary.Ignored[0].ID != big.ID {
		t.Errorf("summary ignored %+v, want the oversized move", got.Summary.Ignored)
	}
}
