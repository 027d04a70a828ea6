package sim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
)

// The proxy works on websocket frames (RFC 6455 section 5.2) rather than
// through a websocket library, because a library answers pings itself: a
// delayed stream must delay the relay's pongs with everything else, or a
// client that trusts "pong means everything before it arrived" would be
// told a lie no real network tells.

const (
	opContinuation = 0x0
	opText         = 0x1
	opClose        = 0x8
	maxFrame       = 64 << 20
)

// frame is one frame as read: its bytes, to be written on unchanged, and
// its unmasked payload, to be looked at.
type frame struct {
	raw     []byte
	payload []byte
	fin     bool
	op      byte
}

func readFrame(r *bufio.Reader) (frame, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	raw := append([]byte(nil), h[:]...)
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return frame{}, err
		}
		raw = append(raw, ext[:]...)
		n = uint64(binary.BigEndian.Uint16(ext[:]))
	case 127:
		var ext [8]byte
		if _, err := io.ReadFull(r, ext[:]); err != nil {
			return frame{}, err
		}
		raw = append(raw, ext[:]...)
		n = binary.BigEndian.Uint64(ext[:])
	}
	if n > maxFrame {
		return frame{}, fmt.Errorf("sim: websocket frame of %d bytes", n)
	}
	var mask []byte
	if h[1]&0x80 != 0 {
		mask = make([]byte, 4)
		if _, err := io.ReadFull(r, mask); err != nil {
			return frame{}, err
		}
		raw = append(raw, mask...)
	}
	start := len(raw)
	raw = append(raw, make([]byte, n)...)
	if _, err := io.ReadFull(r, raw[start:]); err != nil {
		return frame{}, err
	}
	payload := raw[start:]
	if mask != nil {
		payload = bytes.Clone(payload)
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return frame{raw: raw, payload: payload, fin: h[0]&0x80 != 0, op: h[0] & 0x0f}, nil
}

// textFrame encodes a whole text message as a server sends it (unmasked).
func textFrame(payload []byte) []byte {
	b := []byte{0x80 | opText}
	switch n := len(payload); {
	case n < 126:
		b = append(b, byte(n))
	case n <= 0xffff:
		b = append(b, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, payload...)
}

// garbage is a frame a broken or hostile relay might send: not JSON, JSON
// of the wrong shape, events with a bad id or signature, an event for a
// subscription nobody opened, unsolicited notices and OKs. It never lies
// about the subscription's state (a false EOSE or CLOSED for a live
// subscription id is not garbage but a different fault). sub and event
// come from the last EVENT the relay sent ("" and nil before one).
func garbage(r *rand.Rand, sub string, event []byte) []byte {
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	if event == nil {
		event = []byte(`{"id":"00","pubkey":"00","created_at":1,"kind":4422,"tags":[],"content":"","sig":"00"}`)
	}
	switch r.IntN(9) {
	case 0:
		return []byte("this is not json {{")
	case 1:
		return []byte(`["EVENT"]`)
	case 2:
		return []byte(`["EVENT",` + q(sub) + `,{"id":"zz","kind":"4422","content":7}]`)
	case 3: // the id no longer matches the content
		bad := bytes.Replace(event, []byte(`"content":"`), []byte(`"content":"~`), 1)
		return append(append([]byte(`["EVENT",`+q(sub)+`,`), bad...), ']')
	case 4: // the signature no longer checks
		bad := bytes.Clone(event)
		if i := bytes.Index(bad, []byte(`"sig":"`)); i >= 0 && i+7 < len(bad) {
			if bad[i+7] == '0' {
				bad[i+7] = '1'
			} else {
				bad[i+7] = '0'
			}
		}
		return append(append([]byte(`["EVENT",`+q(sub)+`,`), bad...), ']')
	case 5:
		return []byte(`["NOTICE","the proxy says hello"]`)
	case 6:
		return []byte(`["OK","` + string(bytes.Repeat([]byte("0"), 64)) + `",true,""]`)
	case 7:
		return append(append([]byte(`["EVENT","nobody-asked",`), event...), ']')
	}
	return []byte(`[]`)
}
