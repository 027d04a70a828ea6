package wire

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// liveRelay answers the first REQ on a connection as a relay that goes on
// sending after EOSE does: stored, then EOSE, then live (a new matching
// event published meanwhile), before it reads the CLOSE; every later REQ
// gets its EOSE alone.
func liveRelay(t *testing.T, stored, live *gn.Event) string {
	t.Helper()
	event := func(sub string, ev *gn.Event) string {
		return `["EVENT","` + sub + `",` + string(nostr.MarshalEvent(ev)) + `]`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		c, err := ws.Accept(w, req, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		first := true
		for {
			_, msg, err := c.Read(req.Context())
			if err != nil {
				return
			}
			var f []string
			json.Unmarshal(msg, &f) // fails on a REQ's filters (not strings) but keeps its label and sub
			if len(f) < 2 || f[0] != "REQ" {
				continue
			}
			out := []string{`["EOSE","` + f[1] + `"]`}
			if first {
				out = []string{event(f[1], stored), out[0], event(f[1], live)}
				first = false
			}
			for _, m := range out {
				if c.Write(req.Context(), ws.MessageText, []byte(m)) != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestPageTakesNothingAfterEOSE (issue 39): an event the page's
// subscription receives after WaitEOSE returned never reaches the caller,
// who reads what deliver gathered as soon as Run returns. On the wire
// the late event only reaches the callback when the dispatcher looks the
// subscription up between WaitEOSE's return and the CLOSE, a window no
// relay message can order; so the test, besides a relay that really sends
// one, hands the page's callback a late event itself, as the dispatcher
// does in that window.
func TestPageTakesNothingAfterEOSE(t *testing.T) {
	key := testkit.Key("page-relay")
	match := strings.Repeat("ab", 32)
	mk := func(ply int) *gn.Event {
		return testkit.Sign(key, nostr.NewMove(match, ply, "e2e4", 1_700_000_000+int64(ply)))
	}
	stored, live, late := mk(1), mk(2), mk(3)
	c, err := Dial(t.Context(), liveRelay(t, stored, live), slog.New(slog.DiscardHandler), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseWait(ErrClosed)

	var (
		mu       sync.Mutex
		returned bool
		after    []string // ids delivered once Run had returned
		pageSub  *Sub
	)
	deliver := func(ev *gn.Event) {
		mu.Lock()
		defer mu.Unlock()
		if returned {
			after = append(after, ev.ID)
		}
		if pageSub == nil {
			c.mu.Lock()
			for _, s := range c.subs {
				pageSub = s // the page's is the only subscription yet
			}
			c.mu.Unlock()
		}
	}
	filter := gn.Filter{Kinds: []int{nostr.KindMove}}
	p := &Pager{Conn: c, Limit: 10, CapKnown: true, Timeout: testkit.Scale(10 * time.Second)}
	if _, err := p.Run(t.Context(), filter, 0, deliver); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	returned = true
	s := pageSub
	mu.Unlock()
	if s == nil {
		t.Fatal("the stored event never reached the caller")
	}

	// Messages on a connection are dispatched in order: once this
	// subscription's EOSE is in, the live event has been dispatched too.
	marker, err := c.Subscribe(gn.Filters{filter}, func(*gn.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitEOSE(t.Context(), marker, testkit.Scale(10*time.Second)); err != nil {
		t.Fatal(err)
	}
	s.deliver(late)

	mu.Lock()
	defer mu.Unlock()
	if len(after) > 0 {
		t.Errorf("after Run returned the caller was handed %d events (%v); want none", len(after), after)
	}
}
