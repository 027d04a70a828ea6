package daemon

import (
	"vesper/nostr"
	"vesper/nostr/batch"
)

// VerifyEvents reports for each event whether its id and signature hold.
// The signatures of a match are checked together (BIP-340 batch
// verification: a match's events come from two or three keys), several
// times faster than one by one.
func VerifyEvents(evs []*nostr.Event) []bool {
	ok := batch.Events(evs)
	for i, ev := range evs {
		ok[i] = ok[i] && ev.CheckID()
	}
	return ok
}
