package site

import (
	"strings"
	"testing"

	"vesper/nostr"
)

// TestEventAnchorsAreUniquePrefixes: an event's row is named by the id's
// first 12 characters, as the table prints it, and by as many more as it
// takes to tell it from another event of the page that shares them (ids
// are hashes, but one player can grind two of their own that share a
// 12-character prefix).
func TestEventAnchorsAreUniquePrefixes(t *testing.T) {
	shared := strings.Repeat("ab", 6) + "c" // 13 characters
	ids := []string{
		shared + "0" + strings.Repeat("1", 50),
		shared + "1" + strings.Repeat("1", 50),
		strings.Repeat("ab", 6) + "d" + strings.Repeat("2", 51), // shares 12 with both
		strings.Repeat("9", 64),
		"short",
	}
	var evs []*nostr.Event
	for _, id := range ids {
		evs = append(evs, &nostr.Event{ID: id})
	}
	got := eventAnchors(evs)
	want := map[string]string{
		ids[0]: shared + "0", ids[1]: shared + "1", ids[2]: strings.Repeat("ab", 6) + "d",
		ids[3]: strings.Repeat("9", 12), ids[4]: "short",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("anchor of %s: %q, want %q", id, got[id], w)
		}
	}
	v := &matchPage{anchors: got}
	if a := v.anchor("ff" + ids[3]); a != "ff"+ids[3] {
		t.Errorf("an event not in the table is named %q, not by its whole id", a)
	}
}
