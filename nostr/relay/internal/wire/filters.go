package wire

import (
	"slices"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/nostr"
)

// GameFilters are the subscription of PROTOCOL.md: challenges by their
// topic tag, the other game kinds by kind, and profile filters for
// authors (the client passes none: profiles have their own subscriptions,
// profileSubs, and queries, fetchProfiles).
func GameFilters(authors []string) []gn.Filter {
	fs := []gn.Filter{
		{Kinds: []int{nostr.KindChallenge}, Tags: gn.TagMap{nostr.TopicTag: {nostr.GamesTopic}}},
		{Kinds: MatchKinds()},
	}
	for chunk := range slices.Chunk(authors, 250) {
		fs = append(fs, gn.Filter{Kinds: []int{nostr.KindProfile}, Authors: slices.Clone(chunk)})
	}
	return fs
}

// MatchKinds are the kinds read by a match's g tag: the fold's and the
// reveals of section 8.2, which the store keeps with their match. They
// share one filter: every kind in it is among nostr.GameKinds, the kinds a
// relay restricting reads to authenticated clients restricts, so such a
// relay asks for AUTH instead of answering without them.
func MatchKinds() []int {
	var ks []int
	for _, k := range nostr.GameKinds() {
		if nostr.IsStoredWithMatch(k) {
			ks = append(ks, k)
		}
	}
	return ks
}
