package batch

import "vesper/nostr"

// Events is Verify for parsed events: it decodes the hex pubkey (64
// digits), id (64) and sig (128) of each event and checks only the
// signature over the id; the caller has already checked that the id is
// the hash of the serialization. A nil event or a malformed field (wrong
// length, not hex) is simply false. Hex digits of either case are read,
// as go-nostr's CheckSignature reads them.
func Events(evs []*nostr.Event) []bool {
	out := make([]bool, len(evs))
	items := make([]Item, 0, len(evs))
	pos := make([]int, 0, len(evs))
	for i, ev := range evs {
		if ev == nil {
			continue
		}
		var it Item
		if !decodeHex(it.Pubkey[:], ev.PubKey) || !decodeHex(it.Msg[:], ev.ID) || !decodeHex(it.Sig[:], ev.Sig) {
			continue
		}
		items = append(items, it)
		pos = append(pos, i)
	}
	for j, ok := range Verify(items) {
		out[pos[j]] = ok
	}
	return out
}

// decodeHex fills dst from exactly 2·len(dst) hex digits, without the
// allocation of converting s to bytes (a rebuild decodes millions).
func decodeHex(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := hexDigit(s[2*i])
		lo, ok2 := hexDigit(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
