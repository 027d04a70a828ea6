package nostr

import (
	"errors"
	"os"
	"strings"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// SecretKey holds a secret key. Its String and GoString never reveal it, so
// a key that reaches a log line or an error message prints as a placeholder.
type SecretKey struct{ hex string }

func (SecretKey) String() string   { return "[secret key]" }
func (SecretKey) GoString() string { return "[secret key]" }

// ErrBadKey is returned for any malformed key; it never quotes the key.
var ErrBadKey = errors.New("nostr: not a secret key (expected nsec1... or 64 hex digits)")

// bech32Prefixes are the NIP-19 forms vesper reads, with their separator.
var bech32Prefixes = []string{"npub1", "nsec1", "note1", "nevent1", "nprofile1"}

// FoldBech32 returns an all-upper-case NIP-19 string (NEVENT1..., as QR
// codes carry it: their alphanumeric mode holds upper case only) in lower
// case, the form the prefix checks and NIP-19's examples use. BIP-173
// allows either case but not both, so anything else is returned as it is:
// a mixed-case string is then refused by the bech32 decoder, and hex is
// never folded (an upper-case hex id or key stays malformed).
func FoldBech32(s string) string {
	if s != strings.ToUpper(s) {
		return s
	}
	lower := strings.ToLower(s)
	for _, p := range bech32Prefixes {
		if strings.HasPrefix(lower, p) {
			return lower
		}
	}
	return s
}

// ParseSecretKey reads nsec1... or 64 hex digits (surrounding space ignored).
func ParseSecretKey(s string) (SecretKey, error) {
	s = FoldBech32(strings.TrimSpace(s))
	if strings.HasPrefix(s, "nsec1") {
		prefix, v, err := nip19.Decode(s)
		if err != nil || prefix != "nsec" {
			return SecretKey{}, ErrBadKey
		}
		s, _ = v.(string)
	}
	s = strings.ToLower(s)
	if !IsLowerHex(s, 64) {
		return SecretKey{}, ErrBadKey
	}
	if _, err := gn.GetPublicKey(s); err != nil {
		return SecretKey{}, ErrBadKey
	}
	return SecretKey{hex: s}, nil
}

// ReadSecretKeyFile reads a key file holding one key.
func ReadSecretKeyFile(path string) (SecretKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return SecretKey{}, err
	}
	return ParseSecretKey(string(b))
}

// GenerateKey makes a fresh random key.
func GenerateKey() SecretKey { return SecretKey{hex: gn.GeneratePrivateKey()} }

// IsZero reports whether the key is unset.
func (k SecretKey) IsZero() bool { return k.hex == "" }

// Hex returns the key's hex form, for writing a key file only.
func (k SecretKey) Hex() string { return k.hex }

// Nsec returns the key's nsec1 form, for writing a key file only.
func (k SecretKey) Nsec() string {
	s, _ := nip19.EncodePrivateKey(k.hex)
	return s
}

// PublicKey returns the hex x-only public key.
func (k SecretKey) PublicKey() string {
	pk, _ := gn.GetPublicKey(k.hex)
	return pk
}

// Sign fills the event's pubkey, id and signature.
func (k SecretKey) Sign(ev *Event) error {
	if ev.Tags == nil {
		ev.Tags = Tags{}
	}
	if err := ev.Sign(k.hex); err != nil {
		return errors.New("nostr: signing failed")
	}
	return nil
}

// Npub encodes a hex public key as npub1...
func Npub(pubkey string) string {
	s, err := nip19.EncodePublicKey(pubkey)
	if err != nil {
		return pubkey
	}
	return s
}

// ParsePubkey reads npub1... or 64 hex digits.
func ParsePubkey(s string) (string, error) {
	s = FoldBech32(strings.TrimSpace(s))
	if strings.HasPrefix(s, "npub1") {
		prefix, v, err := nip19.Decode(s)
		if err != nil || prefix != "npub" {
			return "", errors.New("nostr: bad npub " + quoteShort(s))
		}
		s, _ = v.(string)
	}
	if !IsLowerHex(s, 64) {
		return "", errors.New("nostr: not a public key: " + quoteShort(s))
	}
	return s, nil
}

// ParseEventRef reads an event id given as hex, note1... or nevent1...
func ParseEventRef(s string) (string, error) {
	s = FoldBech32(strings.TrimSpace(s))
	switch {
	case strings.HasPrefix(s, "note1"), strings.HasPrefix(s, "nevent1"):
		prefix, v, err := nip19.Decode(s)
		if err != nil {
			return "", errors.New("nostr: bad " + prefix + " reference " + quoteShort(s))
		}
		switch x := v.(type) {
		case string:
			s = x
		case gn.EventPointer:
			s = x.ID
		default:
			return "", errors.New("nostr: not an event reference: " + quoteShort(s))
		}
	}
	if !IsLowerHex(s, 64) {
		return "", errors.New("nostr: not an event id (hex, note1 or nevent1): " + quoteShort(s))
	}
	return s, nil
}

// Nevent encodes an event id (with its author) as nevent1...
func Nevent(id, author string, relays []string) string {
	s, err := nip19.EncodeEvent(id, relays, author)
	if err != nil {
		return id
	}
	return s
}

// Note is an event id's note1 form (the hex id if it is not one).
func Note(id string) string {
	s, err := nip19.EncodeNote(id)
	if err != nil {
		return id
	}
	return s
}

func quoteShort(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return `"` + s + `"`
}
