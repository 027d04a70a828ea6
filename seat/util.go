package seat

import (
	"cmp"
	"slices"
	"strings"

	"vesper/nostr/relay"
)

func sortReceived(rs []relay.Received) {
	slices.SortFunc(rs, func(a, b relay.Received) int {
		return cmp.Or(cmp.Compare(a.Event.CreatedAt, b.Event.CreatedAt), cmp.Compare(a.Event.ID, b.Event.ID))
	})
}

func sortStrings(s []string) { slices.Sort(s) }

// shortErr drops the relay URL the error repeats, since the caller keys
// the message by it.
func shortErr(err error, url string) string {
	msg := err.Error()
	for _, p := range []string{"relay: " + url + ": ", url + ": ", "relay: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}
