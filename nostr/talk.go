package nostr

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	gn "github.com/nbd-wtf/go-nostr"
)

// Section 8 (revision 3): what a move or result may carry beside the game.
// Nothing here is read by the fold; a malformed tag only means nothing is
// shown for it (with a reason), never that the event is ignored.

const (
	// MaxCommentShown is how many code points of a comment are shown
	// (section 8.1); a longer comment is cut there and marked as cut.
	MaxCommentShown = 300
	// SaltLen is the length of a reasoning salt in lowercase hex (8.2).
	SaltLen = 32
)

// ReasoningHash is the commitment of section 8.2: lowercase hex sha256 of
// the UTF-8 bytes of salt + "\n" + text.
func ReasoningHash(salt, text string) string {
	h := sha256.New()
	h.Write([]byte(salt))
	h.Write([]byte{'\n'})
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// NewSalt draws a fresh salt: 16 random bytes as 32 lowercase hex. Each
// committing event gets its own, so equal texts never show equal hashes.
func NewSalt() string {
	var b [SaltLen / 2]byte
	// crypto/rand.Read never fails on supported platforms (Go 1.24+: it
	// crashes the program rather than return weak bytes).
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// IsSalt reports whether s has the form of a salt.
func IsSalt(s string) bool { return IsLowerHex(s, SaltLen) }

// Talk is what a player adds to its move (or result) under section 8: each
// part is optional.
type Talk struct {
	Comment   string // public table talk, "" for none
	Reasoning string // the commitment hash (ReasoningHash), "" for none
	Attempts  *int   // refused answers before this move, nil for none
	Usage     *Usage // self-reported effort, nil for none
	Fallback  string // FallbackRandom or FallbackEngine when the harness chose the move, "" for none
}

// Tags returns the section 8 tags for t, in a fixed order.
func (t Talk) Tags() Tags {
	var out Tags
	if t.Comment != "" {
		out = append(out, gn.Tag{CommentTag, t.Comment})
	}
	if t.Reasoning != "" {
		out = append(out, gn.Tag{ReasoningTag, t.Reasoning})
	}
	if t.Attempts != nil {
		out = append(out, gn.Tag{AttemptsTag, strconv.Itoa(*t.Attempts)})
	}
	if t.Usage != nil && !t.Usage.Empty() {
		out = append(out, gn.Tag{UsageTag, t.Usage.JSON()})
	}
	if t.Fallback != "" {
		out = append(out, gn.Tag{FallbackTag, t.Fallback})
	}
	return out
}

// WithTalk appends t's tags to an unsigned event and returns it.
func WithTalk(ev *Event, t Talk) *Event {
	ev.Tags = append(ev.Tags, t.Tags()...)
	return ev
}

// singleTag returns the value of the one tag named name. Section 8 says
// "one tag": with two or more, none is read (as section 1 treats two g
// tags), and a tag without a value is no value.
func singleTag(ev *Event, name string) (string, error) {
	n, vals := countTags(ev, name)
	switch {
	case n == 0:
		return "", nil
	case n > 1:
		return "", &TagError{Tag: name, Token: "ignored", Reason: fmt.Sprintf("%d %s tags", n, name)}
	case len(vals) == 0:
		return "", &TagError{Tag: name, Token: "ignored", Reason: name + " tag without a value"}
	}
	return vals[0], nil
}

// Comment returns the comment to show (section 8.1): at most
// MaxCommentShown code points, cut reporting that the value was longer.
// An event with no comment tag, or with more than one, shows none.
func Comment(ev *Event) (text string, cut bool) {
	v, err := singleTag(ev, CommentTag)
	if err != nil {
		return "", false
	}
	return CutComment(v)
}

// CleanTalk is a player's words as another player's agent may read them
// (issue 38 item 4): table talk is user content, and an agent hands it to
// a language model or a terminal. Control characters (C0, DEL, C1: ESC
// sequences redraw a terminal, NUL and friends end strings early) and
// bidi controls (U+061C, U+200E-U+200F, U+202A-U+202E, U+2066-U+2069:
// they reorder what a reader sees against what a model reads) are
// removed; tab, newlines and the line and paragraph separators
// U+2028-U+2029 become one space each, so the words cannot fake a new
// line of the prompt around them; bytes that are not UTF-8 go. Every
// other character stays as written.
func CleanTalk(v string) string {
	v = strings.ToValidUTF8(v, "")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029:
			return ' '
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			return -1
		case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, v)
}

// CutComment cuts a comment to MaxCommentShown code points.
func CutComment(v string) (string, bool) {
	if utf8.RuneCountInString(v) <= MaxCommentShown {
		return v, false
	}
	n := 0
	for i := range v {
		if n == MaxCommentShown {
			return v[:i], true
		}
		n++
	}
	return v, false
}

// Reasoning returns the event's committed hash as written, ok false when it
// carries no single reasoning tag. The value is not checked for form: a
// verifier compares it exactly with the hash it computes, so a malformed
// one simply never verifies.
func Reasoning(ev *Event) (hash string, ok bool) {
	v, err := singleTag(ev, ReasoningTag)
	if err != nil || v == "" {
		return "", false
	}
	return v, true
}

// Attempts reads ["attempts","N"] (section 8.3): present false without the
// tag; an error (token "ignored") for a value that is not a decimal
// integer >= 0 without sign or leading zeros.
func Attempts(ev *Event) (n int, present bool, err error) {
	v, err := singleTag(ev, AttemptsTag)
	if err != nil {
		return 0, true, err
	}
	if countOf(ev, AttemptsTag) == 0 {
		return 0, false, nil
	}
	if v == "0" {
		return 0, true, nil
	}
	n, ok := ParsePly(v) // the same form as a ply: >= 1, no sign, no leading zero
	if !ok {
		return 0, true, &TagError{Tag: AttemptsTag, Token: "ignored", Reason: fmt.Sprintf("malformed attempts %q", v)}
	}
	return n, true, nil
}

func countOf(ev *Event, name string) int {
	n, _ := countTags(ev, name)
	return n
}

// Fallback reads ["fallback", "random"|"engine"] (section 8.3, revision
// 3.1): "" without the tag; an error (token "ignored") for two tags or a
// value other than the two the protocol names, which sites show as no
// fallback claim at all.
func Fallback(ev *Event) (string, error) {
	v, err := singleTag(ev, FallbackTag)
	if err != nil || countOf(ev, FallbackTag) == 0 {
		return "", err
	}
	if v != FallbackRandom && v != FallbackEngine {
		return "", &TagError{Tag: FallbackTag, Token: "ignored", Reason: fmt.Sprintf("unknown fallback %q", v)}
	}
	return v, nil
}
