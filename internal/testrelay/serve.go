package testrelay

import (
	"cmp"
	"iter"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
)

// Serve serves h (a khatru relay with hooks of the test's own, say) on a
// loopback port until the test ends, and returns its ws:// URL.
func Serve(t testing.TB, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: testkit.Scale(5 * time.Second)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "ws://" + ln.Addr().String()
}

// Newest is the events of evs that f matches, newest first (ties by id),
// at most limit (limit < 1: all), as relays answer a REQ.
func Newest(evs iter.Seq[*gn.Event], f gn.Filter, limit int) []*gn.Event {
	var out []*gn.Event
	for ev := range evs {
		if f.Matches(ev) {
			out = append(out, ev)
		}
	}
	slices.SortFunc(out, func(a, b *gn.Event) int {
		return cmp.Or(cmp.Compare(b.CreatedAt, a.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Chan is evs on a closed channel, as a khatru QueryEvents hook returns
// them.
func Chan(evs []*gn.Event) chan *gn.Event {
	ch := make(chan *gn.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	close(ch)
	return ch
}
