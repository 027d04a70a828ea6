package site

import (
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"

	"vesper/nostr"
)

// TestNeventHints (NIP-19, issue 19): the hints are the relay URLs among
// what the store recorded, in one spelling, each once, public relays
// first, at most three, whatever order they came in.
func TestNeventHints(t *testing.T) {
	// NIP-19's TLV holds 255 bytes of URL. The escaped one grows past
	// that although its raw form is short.
	fits := "wss://relay.example/" + strings.Repeat("a", 235)
	long, escaped := fits+"a", "wss://relay.example/"+strings.Repeat("<", 80)
	for _, u := range []string{long, escaped} {
		if _, err := nostr.NormalizeRelayURL(u); err != nil {
			t.Fatalf("%s is a relay URL, only too long for an nevent: %v", u, err)
		}
	}
	cases := []struct {
		name   string
		relays []string
		want   []string
	}{
		{"none", nil, nil},
		{"one", []string{"wss://relay.example"}, []string{"wss://relay.example"}},
		{"spellings of one relay", []string{"wss://Relay.Example:443/", "wss://relay.example", " wss://relay.example// "}, []string{"wss://relay.example"}},
		{"not relays", []string{"https://relay.example", "javascript:alert(1)", "wss://", "wss://user@relay.example", "", long, escaped}, nil},
		{"the longest", []string{fits}, []string{fits}},
		{"at most three, sorted", []string{"wss://d.example", "wss://b.example", "wss://c.example", "wss://a.example"},
			[]string{"wss://a.example", "wss://b.example", "wss://c.example"}},
		{"public first", []string{"ws://localhost:7777", "ws://127.0.0.1:7777", "wss://z.example"},
			[]string{"wss://z.example", "ws://127.0.0.1:7777", "ws://localhost:7777"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := neventHints(c.relays)
			if !slices.Equal(got, c.want) {
				t.Errorf("neventHints(%q) = %q, want %q", c.relays, got, c.want)
			}
			rev := slices.Clone(c.relays)
			slices.Reverse(rev)
			if again := neventHints(rev); !slices.Equal(again, got) {
				t.Errorf("in reverse order: %q, want %q", again, got)
			}
		})
	}
}

var neventCode = regexp.MustCompile(`<code class="id copy">(nevent1[02-9ac-hj-np-z]+)</code>`)

// TestMatchPageNevent: each match page shows an nevent that decodes to its
// challenge, its challenger and the hints of Input.Relays.
func TestMatchPageNevent(t *testing.T) {
	f := newFixture(t)
	out, _ := buildFixture(t, f.in)
	for name, id := range f.ids {
		t.Run(name, func(t *testing.T) {
			page := readPage(t, out, "m/"+id+".html")
			m := neventCode.FindStringSubmatch(page)
			if m == nil {
				t.Fatal("no nevent on the page")
			}
			prefix, v, err := nip19.Decode(html.UnescapeString(m[1]))
			if err != nil || prefix != "nevent" {
				t.Fatalf("nip19.Decode: %q %v", prefix, err)
			}
			p, ok := v.(gn.EventPointer)
			if !ok {
				t.Fatalf("decoded %T, want an event pointer", v)
			}
			want := neventHints(f.in.Relays[id])
			if p.ID != id || p.Author != f.games[name].Events[0].PubKey || !slices.Equal(p.Relays, want) {
				t.Errorf("nevent says %s by %s at %q, want %s by the challenger at %q", p.ID, p.Author, p.Relays, id, want)
			}
			for _, h := range want {
				if !strings.Contains(page, "<code>"+h+"</code>") {
					t.Errorf("the page does not list the hint %s", h)
				}
			}
		})
	}
	if got := neventHints(f.in.Relays[f.ids["mate"]]); len(got) != maxHints {
		t.Errorf("the mate's hints %q: the fixture should give more relays than an nevent names", got)
	}
}
