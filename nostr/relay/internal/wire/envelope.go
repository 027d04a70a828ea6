package wire

import (
	"encoding/json"

	"vesper/nostr"
)

// envelope is one relay message split into its label and elements.
type envelope struct {
	label string
	arr   []json.RawMessage
	raw   []byte // the whole message
}

// envelope splits a relay message, which must be a JSON array with a
// string first. The event in an EVENT is not checked here: its bytes go
// through one parser, nostr.ParseEvent in handleEvents, which refuses them
// if they are not JSON. Everything else is checked here, so that a message
// handled is valid JSON, as encoding/json would have it.
func (c *Conn) envelope(msg []byte) (envelope, bool) {
	arr, ok := nostr.SplitArray(msg)
	ok = ok && len(arr) > 0
	var label string
	if ok {
		label, ok = unquote(arr[0])
	}
	if !ok || !restValid(label, arr, msg) {
		c.Log.Debug("relay: unparseable message", "relay", c.URL, "message", Clip(string(msg)))
		return envelope{}, false
	}
	return envelope{label: label, arr: arr, raw: msg}, true
}

// restValid checks what neither unquote (the label) nor ParseEvent (an
// EVENT's event) does: the other elements of an EVENT, and the whole of any
// other message, which is small and never an event's bytes.
func restValid(label string, arr []json.RawMessage, msg []byte) bool {
	if label != "EVENT" || len(arr) < 3 {
		return json.Valid(msg)
	}
	for i, e := range arr {
		if i != 0 && i != 2 && !json.Valid(e) {
			return false
		}
	}
	return true
}

// str is element i of a message as a string, "" if it is not one.
func (e envelope) str(i int) string {
	var s string
	if i < len(e.arr) {
		s, _ = unquote(e.arr[i])
	}
	return s
}

// unquote decodes a JSON string. Printable ASCII without escapes, which
// every label and every subscription id of ours is, is its own value and
// skips encoding/json.
func unquote(lit []byte) (string, bool) {
	if n := len(lit); n >= 2 && lit[0] == '"' && lit[n-1] == '"' {
		body := lit[1 : n-1]
		plain := true
		for _, ch := range body {
			if ch < 0x20 || ch > 0x7e || ch == '"' || ch == '\\' {
				plain = false
				break
			}
		}
		if plain {
			return string(body), true
		}
	}
	var s string
	if json.Unmarshal(lit, &s) != nil {
		return "", false
	}
	return s, true
}
