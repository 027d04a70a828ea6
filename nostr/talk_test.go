package nostr

import (
	"strings"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"
)

// Section 8.2: the hash is sha256 of the UTF-8 bytes of salt + "\n" + text,
// lowercase hex. The vector was computed with python3's hashlib.
func TestReasoningHash(t *testing.T) {
	const salt = "00112233445566778899aabbccddeeff"
	if got, want := ReasoningHash(salt, "e4 opens lines"), "eb858917d2b43037e1f3c57e0879d30a05591a48b6dde9ac271aabacfc2001c6"; got != want {
		t.Fatalf("ReasoningHash = %s, want %s", got, want)
	}
	// The separator matters: "ab" + "\n" + "c" differs from "a" + "\n" + "bc".
	if ReasoningHash("ab", "c") == ReasoningHash("a", "bc") {
		t.Fatal("the hash does not separate salt and text")
	}
}

func TestNewSalt(t *testing.T) {
	a, b := NewSalt(), NewSalt()
	if !IsSalt(a) || !IsSalt(b) {
		t.Fatalf("salts %q %q are not 32 lowercase hex", a, b)
	}
	if a == b {
		t.Fatal("two salts are equal")
	}
}

func move(tags ...gn.Tag) *Event {
	ev := NewMove(strings.Repeat("a", 64), 1, "e4", 100)
	ev.Tags = append(ev.Tags, tags...)
	return ev
}

// Section 8.1: at most 300 code points shown, a longer value cut and marked.
func TestComment(t *testing.T) {
	long := strings.Repeat("é", 301)
	cases := []struct {
		name string
		ev   *Event
		text string
		cut  bool
	}{
		{"none", move(), "", false},
		{"short", move(gn.Tag{CommentTag, "nice <b>move</b>"}), "nice <b>move</b>", false},
		{"300 code points", move(gn.Tag{CommentTag, long[:600]}), long[:600], false},
		{"301 code points cut", move(gn.Tag{CommentTag, long}), long[:600], true},
		{"two comment tags: none shown", move(gn.Tag{CommentTag, "a"}, gn.Tag{CommentTag, "b"}), "", false},
		{"no value", move(gn.Tag{CommentTag}), "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text, cut := Comment(c.ev)
			if text != c.text || cut != c.cut {
				t.Fatalf("Comment = %q, %v; want %q, %v", text, cut, c.text, c.cut)
			}
		})
	}
}

func TestReasoningTag(t *testing.T) {
	h := ReasoningHash(NewSalt(), "x")
	cases := []struct {
		name string
		ev   *Event
		hash string
		ok   bool
	}{
		{"none", move(), "", false},
		{"one", move(gn.Tag{ReasoningTag, h}), h, true},
		{"two: none read", move(gn.Tag{ReasoningTag, h}, gn.Tag{ReasoningTag, h}), "", false},
		{"uppercase kept as written", move(gn.Tag{ReasoningTag, strings.ToUpper(h)}), strings.ToUpper(h), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hash, ok := Reasoning(c.ev)
			if hash != c.hash || ok != c.ok {
				t.Fatalf("Reasoning = %q, %v; want %q, %v", hash, ok, c.hash, c.ok)
			}
		})
	}
}

// Section 8.3: attempts is a decimal integer.
func TestAttempts(t *testing.T) {
	cases := []struct {
		name    string
		ev      *Event
		n       int
		present bool
		bad     bool
	}{
		{"none", move(), 0, false, false},
		{"zero", move(gn.Tag{AttemptsTag, "0"}), 0, true, false},
		{"three", move(gn.Tag{AttemptsTag, "3"}), 3, true, false},
		{"negative", move(gn.Tag{AttemptsTag, "-1"}), 0, true, true},
		{"leading zero", move(gn.Tag{AttemptsTag, "03"}), 0, true, true},
		{"word", move(gn.Tag{AttemptsTag, "two"}), 0, true, true},
		{"two tags", move(gn.Tag{AttemptsTag, "1"}, gn.Tag{AttemptsTag, "1"}), 0, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n, present, err := Attempts(c.ev)
			if n != c.n || present != c.present || (err != nil) != c.bad {
				t.Fatalf("Attempts = %d, %v, %v; want %d, %v, bad %v", n, present, err, c.n, c.present, c.bad)
			}
		})
	}
}

// Section 8.3: usage keys hold non-negative numbers; unknown keys ignored;
// missing is absent, never zero.
func TestParseUsage(t *testing.T) {
	cases := []struct {
		name string
		in   string
		out  string // the JSON written back, "" when refused
	}{
		{"all", `{"input_tokens":1200,"output_tokens":30,"reasoning_tokens":0,"cost_usd":0.0042,"latency_ms":850.5}`,
			`{"input_tokens":1200,"output_tokens":30,"reasoning_tokens":0,"cost_usd":0.0042,"latency_ms":850.5}`},
		{"missing is absent", `{"output_tokens":7}`, `{"output_tokens":7}`},
		{"unknown keys ignored", `{"model":"x","output_tokens":7,"extra":[1]}`, `{"output_tokens":7}`},
		{"key case is exact", `{"Output_Tokens":7}`, `{}`},
		{"negative refused", `{"output_tokens":-1}`, ""},
		{"string refused", `{"output_tokens":"7"}`, ""},
		{"null refused", `{"output_tokens":null}`, ""},
		{"huge refused", `{"output_tokens":1e400}`, ""},
		{"not an object", `[1]`, ""},
		{"not json", `tokens: 5`, ""},
		{"minus zero is zero", `{"cost_usd":-0}`, `{"cost_usd":0}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := ParseUsage(c.in)
			if c.out == "" {
				if err == nil {
					t.Fatalf("ParseUsage(%s) = %s, want refused", c.in, u.JSON())
				}
				if !strings.HasPrefix(err.Error(), "nostr: tag \"usage\"") {
					t.Fatalf("error %q does not name the usage tag", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseUsage(%s): %v", c.in, err)
			}
			if got := u.JSON(); got != c.out {
				t.Fatalf("ParseUsage(%s) = %s, want %s", c.in, got, c.out)
			}
		})
	}
	if u, _ := ParseUsage(`{"output_tokens":7}`); u.InputTokens != nil {
		t.Fatal("a missing input_tokens reads as present")
	}
}

func TestTalkTagsRoundTrip(t *testing.T) {
	three := 3
	out := 12.0
	u := &Usage{OutputTokens: &out}
	h := ReasoningHash(NewSalt(), "plan")
	ev := WithTalk(move(), Talk{Comment: "hi", Reasoning: h, Attempts: &three, Usage: u})
	if c, _ := Comment(ev); c != "hi" {
		t.Fatalf("comment %q", c)
	}
	if r, _ := Reasoning(ev); r != h {
		t.Fatalf("reasoning %q", r)
	}
	if n, ok, err := Attempts(ev); n != 3 || !ok || err != nil {
		t.Fatalf("attempts %d %v %v", n, ok, err)
	}
	if got, ok, err := ReadUsage(ev); !ok || err != nil || got.JSON() != `{"output_tokens":12}` {
		t.Fatalf("usage %s %v %v", got.JSON(), ok, err)
	}
	if len(WithTalk(move(), Talk{}).Tags) != 2 {
		t.Fatal("an empty talk adds tags")
	}
}

// Section 8.3, revision 3.1: the fallback tag names one of two values;
// anything else, or two tags, is no claim.
func TestFallback(t *testing.T) {
	cases := []struct {
		name string
		ev   *Event
		want string
		bad  bool
	}{
		{"none", move(), "", false},
		{"random", move(gn.Tag{FallbackTag, FallbackRandom}), FallbackRandom, false},
		{"engine", move(gn.Tag{FallbackTag, FallbackEngine}), FallbackEngine, false},
		{"unknown", move(gn.Tag{FallbackTag, "coin"}), "", true},
		{"upper case", move(gn.Tag{FallbackTag, "RANDOM"}), "", true},
		{"no value", move(gn.Tag{FallbackTag}), "", true},
		{"two tags", move(gn.Tag{FallbackTag, FallbackRandom}, gn.Tag{FallbackTag, FallbackRandom}), "", true},
		{"built by Talk", WithTalk(move(), Talk{Fallback: FallbackRandom}), FallbackRandom, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Fallback(c.ev)
			if got != c.want || (err != nil) != c.bad {
				t.Fatalf("Fallback = %q, %v; want %q, bad %v", got, err, c.want, c.bad)
			}
		})
	}
}
