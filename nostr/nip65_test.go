package nostr_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/testkit"
	"vesper/nostr"
)

func relayList(tags ...gn.Tag) *nostr.Event {
	return &nostr.Event{Kind: nostr.KindRelayList, CreatedAt: 1_750_000_000, Tags: nostr.Tags(tags)}
}

// TestNIP65Parse: r tags with no marker are both read and write, "read" and
// "write" one each; anything not exactly right is skipped and counted.
func TestNIP65Parse(t *testing.T) {
	tests := []struct {
		name        string
		tags        []gn.Tag
		read, write []string
		skipped     int
	}{
		{"markers", []gn.Tag{{"r", "wss://a.example"}, {"r", "wss://b.example", "read"}, {"r", "wss://c.example", "write"}},
			[]string{"wss://a.example", "wss://b.example"}, []string{"wss://a.example", "wss://c.example"}, 0},
		{"normalised and merged", []gn.Tag{{"r", "WSS://A.Example:443/", "read"}, {"r", "wss://a.example", "write"}},
			[]string{"wss://a.example"}, []string{"wss://a.example"}, 0},
		{"same relay twice, same marker", []gn.Tag{{"r", "wss://a.example", "write"}, {"r", "wss://a.example/", "write"}},
			nil, []string{"wss://a.example"}, 0},
		{"bad entries skipped", []gn.Tag{{"r"}, {"r", "https://a.example"}, {"r", "wss://b.example", "READ"},
			{"r", "wss://c.example", ""}, {"r", "not a url"}, {"r", "wss://d.example?x=1"}, {"r", "wss://u:p@e.example"},
			{"r", "wss://f.example", "write"}},
			nil, []string{"wss://f.example"}, 7},
		{"other tags ignored", []gn.Tag{{"p", "wss://a.example"}, {"relay", "wss://b.example"}, {}, {"r", "ws://127.0.0.1:7447"}},
			[]string{"ws://127.0.0.1:7447"}, []string{"ws://127.0.0.1:7447"}, 0},
		{"elements after the marker not read", []gn.Tag{{"r", "wss://a.example", "read", "write"}},
			[]string{"wss://a.example"}, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl, err := nostr.ParseRelayList(relayList(tt.tags...))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rl.Read, tt.read) || !slices.Equal(rl.Write, tt.write) || rl.Skipped != tt.skipped {
				t.Errorf("got read %v write %v skipped %d, want %v %v %d", rl.Read, rl.Write, rl.Skipped, tt.read, tt.write, tt.skipped)
			}
		})
	}
}

func TestNIP65Bounded(t *testing.T) {
	var tags []gn.Tag
	for i := range nostr.MaxRelayListEntries + 10 {
		tags = append(tags, gn.Tag{"r", fmt.Sprintf("wss://r%d.example", i)})
	}
	tags = append(tags, gn.Tag{"r", "wss://r0.example", "read"}) // already kept: not over the bound
	rl, err := nostr.ParseRelayList(relayList(tags...))
	if err != nil {
		t.Fatal(err)
	}
	if len(rl.Write) != nostr.MaxRelayListEntries || rl.Skipped != 10 || rl.Write[0] != "wss://r0.example" {
		t.Errorf("got %d write relays, %d skipped (first %s), want %d, 10, r0", len(rl.Write), rl.Skipped, rl.Write[0], nostr.MaxRelayListEntries)
	}
}

func TestNIP65WrongKind(t *testing.T) {
	ev := relayList(gn.Tag{"r", "wss://a.example"})
	ev.Kind = nostr.KindProfile
	if _, err := nostr.ParseRelayList(ev); err == nil || !strings.HasPrefix(err.Error(), "nostr: kind 0") {
		t.Errorf("got %v, want a kind error", err)
	}
	if _, err := nostr.ParseRelayList(nil); err == nil {
		t.Error("nil event parsed")
	}
}

func TestNIP65NormalizeRelayURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"wss://relay.example", "wss://relay.example"},
		{"  wss://Relay.Example/  ", "wss://relay.example"},
		{"wss://relay.example:443", "wss://relay.example"},
		{"ws://relay.example:80/", "ws://relay.example"},
		{"ws://relay.example:443", "ws://relay.example:443"},
		{"wss://relay.example/nostr/", "wss://relay.example/nostr"},
		{"ws://[::1]:7447", "ws://[::1]:7447"},
		{"wss://[::1]", "wss://[::1]"},
		{"WS://127.0.0.1:7447", "ws://127.0.0.1:7447"},
		{"", ""},
		{"relay.example", ""},
		{"https://relay.example", ""},
		{"wss://", ""},
		{"wss://relay.example:", ""},
		{"wss://relay.example#x", ""},
		{"wss://relay.example?", ""},
		{"wss://" + strings.Repeat("a", 300), ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := nostr.NormalizeRelayURL(tt.in)
			if tt.want == "" {
				if err == nil {
					t.Errorf("got %q, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q %v, want %q", got, err, tt.want)
			}
			// The relay client keys relays by go-nostr's spelling: it must
			// leave ours unchanged.
			if n := gn.NormalizeURL(got); n != got {
				t.Errorf("go-nostr normalises %q to %q", got, n)
			}
		})
	}
}

func TestNIP65BuildRoundTrip(t *testing.T) {
	ev, err := nostr.NewRelayList([]string{"wss://both.example", "wss://read.example/"}, []string{"wss://write.example", "wss://both.example"}, 1_750_000_000)
	if err != nil {
		t.Fatal(err)
	}
	want := nostr.Tags{{"r", "wss://write.example", "write"}, {"r", "wss://both.example"}, {"r", "wss://read.example", "read"}}
	if fmt.Sprint(ev.Tags) != fmt.Sprint(want) {
		t.Errorf("tags %v, want %v", ev.Tags, want)
	}
	ev = testkit.Sign(testkit.Key("alice"), ev)
	back, err := nostr.ParseAndVerify(nostr.MarshalEvent(ev))
	if err != nil {
		t.Fatal(err)
	}
	rl, err := nostr.ParseRelayList(back)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rl.Read, []string{"wss://both.example", "wss://read.example"}) ||
		!slices.Equal(rl.Write, []string{"wss://write.example", "wss://both.example"}) || rl.Author != ev.PubKey {
		t.Errorf("parsed back %+v", rl)
	}
	if _, err := nostr.NewRelayList([]string{"http://x.example"}, nil, 1); err == nil {
		t.Error("built a list with an http URL")
	}
	var many []string
	for i := range nostr.MaxRelayListEntries + 1 {
		many = append(many, fmt.Sprintf("wss://r%d.example", i))
	}
	if _, err := nostr.NewRelayList(nil, many, 1); err == nil {
		t.Error("built a list over the bound")
	}
	if ev, err := nostr.NewRelayList(nil, nil, 1); err != nil || len(ev.Tags) != 0 {
		t.Errorf("empty list: %v %v", ev, err)
	}
}

func TestNIP65Latest(t *testing.T) {
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	mk := func(k nostr.SecretKey, at int64, relay string) *nostr.Event {
		ev, err := nostr.NewRelayList(nil, []string{relay}, at)
		if err != nil {
			t.Fatal(err)
		}
		return testkit.Sign(k, ev)
	}
	a1, a2 := mk(alice, 100, "wss://old.example"), mk(alice, 200, "wss://new.example")
	b1, b2 := mk(bob, 300, "wss://one.example"), mk(bob, 300, "wss://two.example")
	lowest := b1
	if b2.ID < b1.ID {
		lowest = b2
	}
	other := testkit.Sign(alice, nostr.NewMove(strings.Repeat("a", 64), 1, "e2e4", 500))
	got := nostr.LatestRelayLists([]*nostr.Event{a2, b1, other, a1, b2})
	if len(got) != 2 || got[alice.PublicKey()].Event != a2.ID || got[bob.PublicKey()].Event != lowest.ID {
		t.Errorf("got %v", got)
	}
}

func TestNIP65IsLocalRelay(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"wss://relay.example", false},
		{"wss://8.8.8.8", false},
		{"ws://127.0.0.1:7447", true},
		{"ws://localhost:7447", true},
		{"ws://relay.localhost", true},
		{"ws://printer.local", true},
		{"ws://10.1.2.3", true},
		{"ws://192.168.0.1", true},
		{"ws://169.254.169.254", true},
		{"ws://[::1]:80", true},
		{"ws://[fd00::1]", true},
		{"ws://0.0.0.0", true},
	}
	for _, tt := range tests {
		if got := nostr.IsLocalRelay(tt.url); got != tt.want {
			t.Errorf("IsLocalRelay(%s) = %v, want %v", tt.url, got, tt.want)
		}
	}
}

func ExampleParseRelayList() {
	ev := &nostr.Event{Kind: nostr.KindRelayList, Tags: nostr.Tags{
		{"r", "wss://both.example/"}, {"r", "WSS://Read.Example", "read"}, {"r", "wss://write.example", "write"}, {"r", "http://no.example"}}}
	rl, _ := nostr.ParseRelayList(ev)
	fmt.Println("read:", rl.Read)
	fmt.Println("write:", rl.Write)
	fmt.Println("skipped:", rl.Skipped)
	// Output:
	// read: [wss://both.example wss://read.example]
	// write: [wss://both.example wss://write.example]
	// skipped: 1
}
