package daemon

import (
	"vesper/match"
	"vesper/nostr"
	"vesper/store"
)

// An item is one event as the ingest edge classified it (classify, issue
// 39 item 4): the one place its fields are checked, its matches derived,
// its role and whether it is a stub decided. The quotas, the held
// challenges, the store, the fold, the stash, the reveals and the
// challengers' profiles read these facts and derive none again.
type item struct {
	// store.Classify has checked it: Event (the stub when stub), Relay,
	// SeenAt, Raw and Matches (a challenge its own id; any other event the
	// 64-hex matches its g tags name, each once; a stub at most
	// match.StubMatches of them) go to the store as they are.
	store.Incoming
	role role
	stub bool // Event is match.Stub of an event every match ignores
}

// role is what an item is to the ingest path.
type role int

const (
	roleChallenge role = iota // opens the match of its own id
	roleAnswer                // an accept or a move: answers a challenge (quota, held challenges)
	roleReveal                // section 8.2: stored with its match, never folded
	roleOther                 // a result, request or ruling
)

// classify is the ingest edge's verdict on an event from relay (""
// for the daemon's own) seen at now: the item, or why it is not kept
// with a match (a rejection reason the metrics count). An event every
// match ignores for what it is (over 65536 bytes, or not exactly one g
// tag) becomes its stub; a reveal that is not worth storing
// (revealStorable) and an event naming no match are not kept.
// Profiles and relay lists are screen's, not items.
func classify(ev *nostr.Event, relay string, now int64) (item, string) {
	var it item
	switch {
	case ev.Kind == nostr.KindChallenge:
		it.role = roleChallenge
	case !nostr.IsStoredWithMatch(ev.Kind):
		return it, "kind"
	case ev.Kind == nostr.KindAccept || ev.Kind == nostr.KindMove:
		it.role = roleAnswer
	case ev.Kind == nostr.KindReveal:
		if !revealStorable(ev) {
			return it, "reveal"
		}
		it.role = roleReveal
	default:
		it.role = roleOther
	}
	in := store.Incoming{Event: ev, Relay: relay, SeenAt: now}
	if stub := match.Stub(ev); stub != nil {
		in.Event, it.stub = stub, true
	}
	in, err := store.Classify(in) // the event's own bytes: the store writes its canonical JSON
	if err != nil {
		return it, "malformed"
	}
	if len(in.Matches) == 0 {
		return it, "no_match"
	}
	it.Incoming = in
	return it, ""
}

// revealStorable says whether a reveal is worth keeping: one g tag (the
// reveal package ignores any other as a whole, as section 1 does a move's)
// and within section 1's size limit. A match event over the limit is kept
// as a stub because the fold must list it; an ignored reveal is listed by
// nobody, so its body is not worth a byte of the store.
func revealStorable(ev *nostr.Event) bool {
	return nostr.SingleG(ev) == nil && !nostr.TooLarge(ev)
}

// incoming is what the store takes of items.
func incoming(items []item) []store.Incoming {
	out := make([]store.Incoming, len(items))
	for i, it := range items {
		out[i] = it.Incoming
	}
	return out
}
