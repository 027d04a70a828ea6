package reveal

import (
	"strings"
	"testing"

	"vesper/nostr"
)

// Admit (section 8.2, issue 38 item 1): a reveal belongs to its match when
// its author is a player and it names a committing event of that author
// that the author's kept reveals do not name yet.
func TestAdmit(t *testing.T) {
	alice, bob, eve := strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("e", 64)
	mine, theirs, none := strings.Repeat("1", 64), strings.Repeat("2", 64), strings.Repeat("3", 64)
	committed := func(id string) (string, bool) {
		switch id {
		case mine:
			return alice, true
		case theirs:
			return bob, true
		}
		return "", false
	}
	rv := func(author string, ids ...string) *nostr.Event {
		var entries []nostr.RevealEntry
		for _, id := range ids {
			entries = append(entries, nostr.RevealEntry{Event: id, Salt: strings.Repeat("0", nostr.SaltLen), Text: "t"})
		}
		evs, err := nostr.NewReveal(strings.Repeat("f", 64), entries, 1)
		if err != nil {
			t.Fatal(err)
		}
		evs[0].PubKey = author
		return evs[0]
	}
	for _, tt := range []struct {
		name   string
		ev     *nostr.Event
		second string
		named  map[string]bool
		want   string
		fresh  int
	}{
		{"a player's own event", rv(alice, mine), bob, nil, "", 1},
		{"a stranger", rv(eve, mine), bob, nil, NotPlayer, 0},
		{"no second player yet", rv(alice, mine), "", nil, NotPlayer, 0},
		{"the opponent's event", rv(alice, theirs), bob, nil, NamesNothing, 0},
		{"no event of the match", rv(alice, none), bob, nil, NamesNothing, 0},
		{"revealed before", rv(alice, mine), bob, map[string]bool{mine: true}, NamesNothing, 0},
		{"one new among others", rv(alice, none, theirs, mine, mine), bob, nil, "", 1},
		{"not a reveal", &nostr.Event{PubKey: alice, Kind: nostr.KindReveal, Content: "{}"}, bob, nil, Unreadable, 0},
	} {
		fresh, why := Admit(tt.ev, alice, tt.second, committed, tt.named)
		if why != tt.want || len(fresh) != tt.fresh {
			t.Errorf("%s: %q with %d fresh, want %q with %d", tt.name, why, len(fresh), tt.want, tt.fresh)
		}
	}
}
