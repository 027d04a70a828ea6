package limits

import (
	"fmt"
	"testing"

	"vesper/nostr"
)

// TestProfileREQsPack: profile subscriptions for more authors than a relay
// takes are packed within its announced limits, and the authors left over
// are returned, none lost.
func TestProfileREQsPack(t *testing.T) {
	var authors []string
	for i := range 3000 {
		authors = append(authors, fmt.Sprintf("%064x", i))
	}
	l := REQ{MaxMessage: 20000, MaxFilters: 2, MaxSubs: 8}
	reqs, rest := ProfileREQs([]int{nostr.KindProfile}, authors, l, l.LiveSubs()-1)
	if len(reqs) != l.LiveSubs()-1 {
		t.Errorf("%d REQs, want %d", len(reqs), l.LiveSubs()-1)
	}
	n := 0
	for _, fs := range reqs {
		size := reqOverhead
		for _, f := range fs {
			b, _ := f.MarshalJSON()
			size += len(b) + 1
			n += len(f.Authors)
		}
		if len(fs) > l.MaxFilters || size > l.MaxMessage {
			t.Errorf("REQ of %d filters, %d bytes", len(fs), size)
		}
	}
	if n+len(rest) != len(authors) {
		t.Errorf("%d live + %d rest, want %d authors", n, len(rest), len(authors))
	}
}
