package reconcile

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nbd-wtf/go-nostr/nip77/negentropy"
)

// reconcile is neg.Reconcile with a panic turned into an error: the
// decoder slices by lengths the relay chose, and checkNegMessage is a
// guard, not a proof.
func reconcile(neg *negentropy.Negentropy, msg string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed NEG-MSG (%v)", r)
		}
	}()
	return neg.Reconcile(msg)
}

// checkNegMessage walks a negentropy v1 message (NIP-77: a version byte,
// then ranges of upper bound, mode and payload) and refuses one whose
// lengths and counts do not fit in it, before the decoder allocates by
// them.
func checkNegMessage(msg string) error {
	b, err := hex.DecodeString(msg)
	if err != nil {
		return fmt.Errorf("not hex: %w", err)
	}
	if len(b) == 0 {
		return errors.New("empty")
	}
	if b[0] != 0x61 {
		return fmt.Errorf("protocol version %#x, want 0x61", b[0])
	}
	r := &negReader{b: b, pos: 1}
	for r.pos < len(b) {
		if err := r.skipRange(); err != nil {
			return err
		}
	}
	return nil
}

// negReader walks the bytes of a negentropy message.
type negReader struct {
	b   []byte
	pos int
}

func (r *negReader) varint() (int, error) {
	v := 0
	for i := 0; ; i++ {
		if r.pos >= len(r.b) {
			return 0, errors.New("truncated varint")
		}
		if i == 8 {
			return 0, errors.New("varint too long")
		}
		c := r.b[r.pos]
		r.pos++
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

// skipRange reads one range: its upper bound (a timestamp delta and an id
// prefix), its mode and its payload, each checked to fit in what is left.
func (r *negReader) skipRange() error {
	if _, err := r.varint(); err != nil { // timestamp delta
		return err
	}
	n, err := r.varint() // id prefix length
	if err != nil {
		return err
	}
	if n > 32 || r.pos+n > len(r.b) {
		return fmt.Errorf("bound prefix of %d bytes", n)
	}
	r.pos += n
	mode, err := r.varint()
	if err != nil {
		return err
	}
	switch mode {
	case 0: // skip
	case 1: // fingerprint
		if r.pos+negentropy.FingerprintSize > len(r.b) {
			return errors.New("truncated fingerprint")
		}
		r.pos += negentropy.FingerprintSize
	case 2: // id list
		count, err := r.varint()
		if err != nil {
			return err
		}
		if count > (len(r.b)-r.pos)/32 {
			return fmt.Errorf("id list of %d ids in %d bytes", count, len(r.b)-r.pos)
		}
		r.pos += count * 32
	default:
		return fmt.Errorf("unknown mode %d", mode)
	}
	return nil
}

// arrString is element i of a relay message as a string ("" if it is
// missing or not one).
func arrString(arr []json.RawMessage, i int) string {
	var s string
	if i < len(arr) {
		json.Unmarshal(arr[i], &s)
	}
	return s
}
