package reveal

import "vesper/nostr"

// Why a reveal belongs to no match (section 8.2), as metric labels: a
// verifier drops it before its store, since nobody may list it as the
// match's.
const (
	// NotPlayer: the reveal's author is not a player of the match (or the
	// match has no second player yet, so nobody has committed anything).
	NotPlayer = "reveal_not_player"
	// NamesNothing: no entry names a committing event of its author that
	// the author's earlier reveals did not already name.
	NamesNothing = "reveal_names_nothing"
	// Unreadable: the content is not a reveal (section 8.2's JSON).
	Unreadable = "reveal_unreadable"
)

// Committed says, for an event id, who signed it when it is an event of
// the match carrying a reasoning tag (a committing event, counted by the
// fold or not); ok is false for anything else.
type Committed func(id string) (author string, ok bool)

// Admit decides whether a reveal rv of a match whose players are first
// and second (second "" until accepted) belongs to it (section 8.2). It
// does when its author is a player and at least one of its entries names a
// committing event of that author which named (the ids the author's kept
// reveals already name) does not hold. So a player keeps at most one
// reveal per event they could reveal, and a stranger none. fresh lists
// the committing ids the reveal names first; why is one of NotPlayer,
// NamesNothing or Unreadable when it does not belong.
//
// Whether the entry's text verifies is not asked: an entry that names the
// event but does not hash to it is shown as a mismatch (Check), which
// only its author can cause, once per event.
func Admit(rv *nostr.Event, first, second string, committed Committed, named map[string]bool) (fresh []string, why string) {
	if second == "" || rv.PubKey != first && rv.PubKey != second {
		return nil, NotPlayer
	}
	list, err := nostr.ParseReveal(rv.Content)
	if err != nil {
		return nil, Unreadable
	}
	seen := map[string]bool{}
	for _, re := range list {
		if named[re.Event] || seen[re.Event] {
			continue
		}
		if author, ok := committed(re.Event); ok && author == rv.PubKey {
			seen[re.Event] = true
			fresh = append(fresh, re.Event)
		}
	}
	if len(fresh) == 0 {
		return nil, NamesNothing
	}
	return fresh, ""
}

// Named returns the events a reveal's entries name (nil when its content
// is not a reveal), to remember what an admitted reveal covered.
func Named(rv *nostr.Event) []string {
	list, err := nostr.ParseReveal(rv.Content)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(list))
	for _, re := range list {
		out = append(out, re.Event)
	}
	return out
}
