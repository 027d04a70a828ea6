package main

import "vesper/nostr"

// verifyEvents reports for each event whether its id and signature hold.
func verifyEvents(evs []*nostr.Event) []bool {
	out := make([]bool, len(evs))
	for i, ev := range evs {
		out[i] = nostr.Verify(ev) == nil
	}
	return out
}
