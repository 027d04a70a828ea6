package wire

import (
	"net/http"
	"sync"

	"vesper/internal/netguard"
)

// guarded are the HTTP clients of the two policies there are (private
// addresses allowed or not), made once: a client per dial would keep no
// connection for the next NIP-11 request.
var guarded sync.Map // bool (AllowPrivate) -> *http.Client

// HTTPClient is the client for a dial under policy p (the websocket
// handshake, a NIP-11 document): http.DefaultClient when p is nil (a relay
// the operator configured, dialed as written), else one whose every
// connection, redirects included, passes p after resolution.
func HTTPClient(p *netguard.Policy) *http.Client {
	if p == nil {
		return http.DefaultClient
	}
	if c, ok := guarded.Load(p.AllowPrivate); ok {
		return c.(*http.Client)
	}
	c, _ := guarded.LoadOrStore(p.AllowPrivate, &http.Client{Transport: p.Transport()})
	return c.(*http.Client)
}
