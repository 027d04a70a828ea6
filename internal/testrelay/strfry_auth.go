package testrelay

import (
	"encoding/json"
	"strings"

	gn "github.com/nbd-wtf/go-nostr"
)

func (c *strfryConn) auth(raw json.RawMessage) {
	var ev gn.Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		c.send("OK", "?", false, "error: event is not an object")
		return
	}
	fail := func(why string) { c.send("OK", ev.ID, false, "error: "+why) }
	if !ev.CheckID() {
		fail("bad event id")
		return
	}
	if ok, _ := ev.CheckSignature(); !ok {
		fail("bad signature")
		return
	}
	if ev.Kind != 22242 {
		fail("wrong event kind, expected 22242")
		return
	}
	c.mu.Lock()
	challenge, authed := c.challenge, c.authed
	c.mu.Unlock()
	switch {
	case challenge == "":
		fail("no auth status available for connection")
		return
	case authed != "":
		fail("already authenticated")
		return
	}
	var gotChallenge, gotRelay bool
	for _, tag := range ev.Tags {
		if len(tag) < 2 {
			continue
		}
		switch {
		case tag[0] == "relay" && strfryHost(tag[1]) == c.r.host:
			gotRelay = true
		case tag[0] == "challenge" && tag[1] == challenge:
			gotChallenge = true
		}
	}
	if !gotChallenge {
		fail("challenge string mismatch")
		return
	}
	if !gotRelay {
		fail("incorrect or missing relay tag, expected: ws://" + c.r.host)
		return
	}
	c.mu.Lock()
	c.authed = ev.PubKey
	c.mu.Unlock()
	c.r.opts.Stats.Auths.Add(1)
	c.send("OK", ev.ID, true, "successfully authenticated")
}

// strfryHost is strfry's normalizeRelayUrl: the host and port, lowercase,
// without scheme or path.
func strfryHost(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "/?#"); i >= 0 {
		u = u[:i]
	}
	return strings.ToLower(u)
}
