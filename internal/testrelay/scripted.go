package testrelay

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	ws "github.com/coder/websocket"

	"vesper/nostr/relay/limits"
)

// Frame is one client message, ["LABEL", sub, ...].
type Frame struct {
	Label, Sub string
	Raw        []json.RawMessage // the whole array
}

// Str is element i of the frame as a string, "" when it is not one.
func (f Frame) Str(i int) string {
	var s string
	if i < len(f.Raw) {
		json.Unmarshal(f.Raw[i], &s)
	}
	return s
}

// Scripted starts a loopback relay that says only what its test scripts:
// the relays that misbehave in one precise way (never converge, refuse
// every NEG-OPEN, hold a query) without a real relay's code around them.
// nip11 is its NIP-11 document ("": none, and such a request fails the
// websocket handshake). Each connection asks conn for its own answer
// function (state kept in it is the connection's), which turns each
// client frame into the raw frames sent back, in order (none: silence).
// A message that is not an array of at least two is ignored. It returns
// the relay's ws:// URL, with no NIP-11 document cached for it; the relay
// closes at the test's end.
func Scripted(t testing.TB, nip11 string, conn func() func(Frame) []string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if nip11 != "" && req.Header.Get("Accept") == "application/nostr+json" {
			w.Header().Set("Content-Type", "application/nostr+json")
			w.Write([]byte(nip11))
			return
		}
		c, err := ws.Accept(w, req, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20) // a REQ for 500 ids is over the default 32 KiB
		answer := conn()
		for {
			_, msg, err := c.Read(req.Context())
			if err != nil {
				return
			}
			var f Frame
			if json.Unmarshal(msg, &f.Raw) != nil || len(f.Raw) < 2 {
				continue
			}
			f.Label, f.Sub = f.Str(0), f.Str(1)
			for _, reply := range answer(f) {
				if c.Write(req.Context(), ws.MessageText, []byte(reply)) != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(srv.Close)
	u := "ws" + strings.TrimPrefix(srv.URL, "http")
	limits.Forget(u)
	return u
}

// EOSE is the frame that ends subscription sub's stored events.
func EOSE(sub string) string { return `["EOSE",` + quote(sub) + `]` }

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
