package nostr

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestNewRevealRoundTrip(t *testing.T) {
	match := strings.Repeat("b", 64)
	entries := []RevealEntry{
		{Event: strings.Repeat("1", 64), Salt: NewSalt(), Text: "take the centre \"now\"\n<b>"},
		{Event: strings.Repeat("2", 64), Salt: NewSalt(), Text: "ünïcödé ♞"},
	}
	evs, err := NewReveal(match, entries, 500)
	if err != nil || len(evs) != 1 {
		t.Fatalf("NewReveal = %d events, %v; want 1", len(evs), err)
	}
	ev := evs[0]
	if ev.Kind != KindReveal || int64(ev.CreatedAt) != 500 || !HasMatchTag(ev, match) || SingleG(ev) != nil {
		t.Fatalf("reveal event %+v", ev)
	}
	got, err := ParseReveal(ev.Content)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(entries) {
		t.Fatalf("ParseReveal = %v, want %v", got, entries)
	}
}

// Section 8.2: a player may reveal in several events, each bound by the
// 65536-byte limit of section 1.
func TestNewRevealSplits(t *testing.T) {
	match := strings.Repeat("b", 64)
	var entries []RevealEntry
	for i := 0; i < 10; i++ {
		// Quotes take two bytes once escaped twice over: the size counted
		// must be the canonical serialization's, not the text's.
		entries = append(entries, RevealEntry{Event: fmt.Sprintf("%064x", i), Salt: NewSalt(), Text: strings.Repeat(`"`, 9000)})
	}
	evs, err := NewReveal(match, entries, 500)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 2 {
		t.Fatalf("%d events, want a split", len(evs))
	}
	var all []RevealEntry
	for _, ev := range evs {
		ev.PubKey = strings.Repeat("f", 64)
		if TooLarge(ev) {
			t.Fatalf("a reveal of %d bytes exceeds the limit", SerializedLen(ev))
		}
		got, err := ParseReveal(ev.Content)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got...)
	}
	if fmt.Sprint(all) != fmt.Sprint(entries) {
		t.Fatal("the split lost or reordered entries")
	}
	if _, err := NewReveal(match, []RevealEntry{{Event: entries[0].Event, Salt: entries[0].Salt, Text: strings.Repeat("x", MaxEventSize)}}, 500); err == nil {
		t.Fatal("an entry too large for any event was accepted")
	}
}

func TestParseRevealStrict(t *testing.T) {
	id, salt := strings.Repeat("1", 64), strings.Repeat("a", 32)
	ok := func(extra string) string {
		return `{"reveal":[{"event":"` + id + `","salt":"` + salt + `","text":"t"` + extra + `}]}`
	}
	cases := []struct {
		name, content string
		good          bool
	}{
		{"good", ok(""), true},
		{"unknown keys ignored", ok(`,"model":"x"`), true},
		{"empty list", `{"reveal":[]}`, true},
		{"not json", `reveal`, false},
		{"no reveal key", `{"Reveal":[]}`, false},
		{"not an array", `{"reveal":{}}`, false},
		{"entry not an object", `{"reveal":[1]}`, false},
		{"uppercase event id", strings.Replace(ok(""), id, strings.Repeat("A", 64), 1), false},
		{"short salt", strings.Replace(ok(""), salt, salt[:31], 1), false},
		{"text not a string", `{"reveal":[{"event":"` + id + `","salt":"` + salt + `","text":5}]}`, false},
		{"missing text", `{"reveal":[{"event":"` + id + `","salt":"` + salt + `"}]}`, false},
		{"one bad entry refuses all", `{"reveal":[` + ok("")[11:len(ok(""))-2] + `,{"event":"x"}]}`, false},
		{"lone surrogate in text", `{"reveal":[{"event":"` + id + `","salt":"` + salt + `","text":"\ud800"}]}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseReveal(c.content)
			if (err == nil) != c.good {
				t.Fatalf("ParseReveal(%s) error %v, want good %v", c.content, err, c.good)
			}
		})
	}
}

// Section 8.4: agent strings of at most 100 code points; unknown keys
// ignored; a field that breaks the rule is left out with a reason.
func TestAgentProfile(t *testing.T) {
	p := Profile{Name: "bot <1>", About: "plays", Agent: Agent{Model: "demo-model-a", Provider: "acme", Harness: "vesper play", Version: "1"}}
	ev, err := NewProfile(p, 7)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"bot <1>","about":"plays","bot":true,"agent":{"model":"demo-model-a","provider":"acme","harness":"vesper play","version":"1"}}`
	if ev.Content != want || ev.Kind != KindProfile {
		t.Fatalf("content %s\nwant %s", ev.Content, want)
	}
	a, present, ignored := ReadAgent(ev.Content)
	if !present || a != p.Agent || len(ignored) != 0 {
		t.Fatalf("ReadAgent = %+v %v %v", a, present, ignored)
	}
	if ev, _ := NewProfile(Profile{Name: "x"}, 7); ev.Content != `{"name":"x","bot":true}` {
		t.Fatalf("no agent: %s", ev.Content)
	}
	if _, err := NewProfile(Profile{Name: "x", Agent: Agent{Model: strings.Repeat("m", 101)}}, 7); err == nil {
		t.Fatal("a 101 code point model was accepted")
	}
	if _, err := NewProfile(Profile{Name: "x", Agent: Agent{Model: strings.Repeat("é", 100)}}, 7); err != nil {
		t.Fatalf("100 code points (200 bytes) refused: %v", err)
	}

	cases := []struct {
		name, content string
		want          Agent
		present       bool
		ignored       int
	}{
		{"none", `{"name":"x","bot":true}`, Agent{}, false, 0},
		{"unknown keys", `{"agent":{"model":"m","temperature":0.2}}`, Agent{Model: "m"}, true, 0},
		{"not a string", `{"agent":{"model":5,"provider":"p"}}`, Agent{Provider: "p"}, true, 1},
		{"too long", `{"agent":{"model":"` + strings.Repeat("m", 101) + `","harness":"h"}}`, Agent{Harness: "h"}, true, 1},
		{"not an object", `{"agent":"gpt"}`, Agent{}, false, 1},
		{"not json", `nope`, Agent{}, false, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, present, ignored := ReadAgent(c.content)
			if a != c.want || present != c.present || len(ignored) != c.ignored {
				t.Fatalf("ReadAgent = %+v, %v, %v; want %+v, %v, %d ignored", a, present, ignored, c.want, c.present, c.ignored)
			}
			for _, r := range ignored {
				if !strings.HasPrefix(r, "ignored: ") {
					t.Fatalf("reason %q", r)
				}
			}
		})
	}
}

// FuzzReveal: any content is a reveal or an error, never a panic; and any
// text round-trips through NewReveal and ParseReveal, within the size
// limit (section 8.2).
func FuzzReveal(f *testing.F) {
	f.Add(`{"reveal":[{"event":"`+strings.Repeat("1", 64)+`","salt":"`+strings.Repeat("a", 32)+`","text":"t"}]}`, "plan\n\"quoted\"")
	f.Add(`{"reveal":null}`, "")
	f.Add(`[]`, "\x00\u2028<>&")
	f.Fuzz(func(t *testing.T, content, text string) {
		_, _ = ParseReveal(content)
		if !utf8.ValidString(text) {
			return // event strings are valid UTF-8 once parsed
		}
		e := RevealEntry{Event: strings.Repeat("2", 64), Salt: strings.Repeat("b", 32), Text: text}
		evs, err := NewReveal(strings.Repeat("c", 64), []RevealEntry{e, e}, 1)
		if err != nil {
			return // too large for one event
		}
		var got []RevealEntry
		for _, ev := range evs {
			ev.PubKey = strings.Repeat("f", 64)
			if TooLarge(ev) {
				t.Fatal("a reveal exceeds the size limit")
			}
			list, err := ParseReveal(ev.Content)
			if err != nil {
				t.Fatalf("own reveal does not parse: %v", err)
			}
			got = append(got, list...)
		}
		if len(got) != 2 || got[0] != e || got[1] != e {
			t.Fatalf("round trip: %q", got)
		}
	})
}
