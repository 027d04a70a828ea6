package nostr_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
)

func signed() *nostr.Event {
	return testkit.Sign(testkit.Key("alice"), nostr.NewMove(strings.Repeat("a", 64), 3, "e2e4 <&>\u2028", 1_750_000_000))
}

// TestSection1RoundTrip: an event we build, sign and marshal parses back and
// verifies; the marshalled form keeps <, >, & and U+2028 unescaped.
func TestSection1RoundTrip(t *testing.T) {
	ev := signed()
	raw := nostr.MarshalEvent(ev)
	if strings.Contains(string(raw), `\u003c`) || strings.Contains(string(raw), `\u2028`) {
		t.Fatalf("HTML escaping in %s", raw)
	}
	got, err := nostr.ParseAndVerify(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != ev.ID || got.Content != ev.Content {
		t.Fatalf("got %+v", got)
	}
}

func TestSection1Malformed(t *testing.T) {
	ev := signed()
	good := string(nostr.MarshalEvent(ev))
	cases := []struct {
		name, from, to, field string
	}{
		{"created_at fraction", `"created_at":1750000000`, `"created_at":1750000000.0`, "created_at"},
		{"created_at exponent", `"created_at":1750000000`, `"created_at":1.75e9`, "created_at"},
		{"created_at negative", `"created_at":1750000000`, `"created_at":-1`, "created_at"},
		{"created_at string", `"created_at":1750000000`, `"created_at":"1750000000"`, "created_at"},
		// Issue 30, item 11: past 2^53-1 JavaScript verifiers read another
		// number (MaxCreatedAt); past int64 Go cannot hold it.
		{"created_at 2^53", `"created_at":1750000000`, `"created_at":9007199254740992`, "created_at"},
		{"created_at int64 max", `"created_at":1750000000`, `"created_at":9223372036854775807`, "created_at"},
		{"created_at past int64", `"created_at":1750000000`, `"created_at":9223372036854776000`, "created_at"},
		{"kind fraction", `"kind":4422`, `"kind":4422.5`, "kind"},
		{"uppercase id", `"id":"` + ev.ID, `"id":"` + strings.ToUpper(ev.ID), "id"},
		{"short sig", `"sig":"` + ev.Sig, `"sig":"` + ev.Sig[:126], "sig"},
		{"tag not strings", `["ply","3"]`, `["ply",3]`, "tags"},
		{"tags null", `"tags":[`, `"tags":null,"x":[`, "tags"},
		{"lone high surrogate", `"content":"e2e4`, `"content":"\ud800e2e4`, "content"},
		{"lone low surrogate", `"content":"e2e4`, `"content":"\udc00e2e4`, "content"},
		{"content number", `"content":"e2e4 <&>` + "\u2028" + `"`, `"content":5`, "content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := strings.Replace(good, c.from, c.to, 1)
			if raw == good {
				t.Fatalf("case did not change the event")
			}
			_, err := nostr.ParseEvent([]byte(raw))
			var pe *nostr.ParseError
			if !errors.As(err, &pe) || pe.Field != c.field {
				t.Fatalf("got %v, want a ParseError on %s", err, c.field)
			}
		})
	}
}

// TestSection1CreatedAtBound: 2^53-1 itself is in range and verifies, one
// more is not. The store's reader still reads what an older store may
// hold, canonical or in a relay's spelling: the fold drops it.
func TestSection1CreatedAtBound(t *testing.T) {
	for _, at := range []int64{0, nostr.MaxCreatedAt, nostr.MaxCreatedAt + 1, math.MaxInt64} {
		ev := testkit.Sign(testkit.Key("alice"), nostr.NewMove(strings.Repeat("a", 64), 3, "e2e4", at))
		raw := nostr.MarshalEvent(ev)
		_, err := nostr.ParseAndVerify(raw)
		if ok := at <= nostr.MaxCreatedAt; (err == nil) != ok {
			t.Errorf("created_at %d: got %v, want accepted %v", at, err, ok)
		}
		spaced := []byte(strings.Replace(string(raw), `,"kind":`, `, "kind":`, 1))
		for _, b := range [][]byte{raw, spaced} {
			if got, serr := nostr.ParseStored(b); serr != nil || int64(got.CreatedAt) != at {
				t.Errorf("created_at %d: ParseStored %v", at, serr)
			}
		}
	}
}

func TestSection1SurrogatePairAccepted(t *testing.T) {
	raw := strings.Replace(string(nostr.MarshalEvent(signed())), `"content":"`, `"content":"\ud83d\ude00`, 1)
	if _, err := nostr.ParseEvent([]byte(raw)); err != nil {
		t.Fatalf("a surrogate pair is fine: %v", err)
	}
}

func TestSection1RepeatedKeyKeepsLast(t *testing.T) {
	ev := signed()
	raw := strings.Replace(string(nostr.MarshalEvent(ev)), `{"id":`, `{"content":"forged","id":`, 1)
	got, err := nostr.ParseAndVerify([]byte(raw))
	if err != nil || got.Content != ev.Content {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestSection1IDAndSignature(t *testing.T) {
	ev := signed()
	forged := *ev
	forged.Content = "e7e5"
	var ce *nostr.CheckError
	if err := nostr.Verify(&forged); !errors.As(err, &ce) {
		t.Fatalf("changed content: got %v", err)
	}
	other := testkit.Sign(testkit.Key("bob"), nostr.NewMove(strings.Repeat("a", 64), 3, "e2e4", 1))
	swapped := *ev
	swapped.Sig = other.Sig
	if err := nostr.Verify(&swapped); !errors.As(err, &ce) {
		t.Fatalf("swapped signature: got %v", err)
	}
}

func TestSection1Size(t *testing.T) {
	k := testkit.Key("alice")
	base := nostr.NewMove(strings.Repeat("a", 64), 1, "", 1)
	testkit.Sign(k, base)
	n := len(base.Serialize())
	at := nostr.NewMove(strings.Repeat("a", 64), 1, strings.Repeat("x", nostr.MaxEventSize-n), 1)
	over := nostr.NewMove(strings.Repeat("a", 64), 1, strings.Repeat("x", nostr.MaxEventSize-n+1), 1)
	testkit.Sign(k, at)
	testkit.Sign(k, over)
	if nostr.TooLarge(at) || !nostr.TooLarge(over) {
		t.Fatalf("65536 bytes is allowed, 65537 is not: %d %d", len(at.Serialize()), len(over.Serialize()))
	}
}

func TestSection1Ply(t *testing.T) {
	cases := map[string]bool{"1": true, "12": true, "0": false, "01": false, "-3": false, "+3": false, "7.0": false, "": false, " 1": false, "1e2": false}
	for in, ok := range cases {
		if _, got := nostr.ParsePly(in); got != ok {
			t.Errorf("ParsePly(%q) = %v, want %v", in, got, ok)
		}
	}
}

func TestSection1ResultJSON(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{`{"result":"draw","reason":"agreement","plies":4,"final_hash":"ab"}`, true},
		{`{"result":"draw","reason":"agreement","plies":4,"final_hash":"ab","x":[1]}`, true},
		{`{"result":"Draw","reason":"agreement","plies":4,"final_hash":"ab"}`, false},
		{`{"Result":"draw","reason":"agreement","plies":4,"final_hash":"ab"}`, false},
		{`{"result":"draw","plies":4,"final_hash":"ab"}`, false},
		{`{"result":"draw","reason":"a","plies":4.0,"final_hash":"ab"}`, false},
		{`{"result":"draw","reason":"a","plies":4e0,"final_hash":"ab"}`, false},
		{`{"result":"draw","reason":"a","plies":"4","final_hash":"ab"}`, false},
		{`{"result":"draw","reason":"a","plies":4,"final_hash":null}`, false},
		{`{"result":"first","result":"draw","reason":"a","plies":-1,"final_hash":""}`, true},
		{`[1]`, false},
		{`not json`, false},
	}
	for _, c := range cases {
		_, err := nostr.ParseResult(c.in)
		if (err == nil) != c.ok {
			t.Errorf("ParseResult(%s): err=%v, want ok=%v", c.in, err, c.ok)
		}
	}
}

func TestSecretKeyNeverPrinted(t *testing.T) {
	k := testkit.Key("alice")
	for _, s := range []string{k.String(), k.GoString(), fmt.Sprint(k), fmt.Sprintf("%v %+v %#v", k, k, k)} {
		if strings.Contains(s, k.Hex()) || strings.Contains(s, k.Nsec()) {
			t.Fatalf("key leaked in %q", s)
		}
	}
	if _, err := nostr.ParseSecretKey("nsec1bad" + k.Hex()); err == nil || strings.Contains(err.Error(), k.Hex()) {
		t.Fatalf("bad key error must not quote the key: %v", err)
	}
}

func TestEventRefs(t *testing.T) {
	ev := signed()
	for _, in := range []string{ev.ID, nostr.Nevent(ev.ID, ev.PubKey, []string{"wss://r.example"})} {
		got, err := nostr.ParseEventRef(in)
		if err != nil || got != ev.ID {
			t.Errorf("ParseEventRef(%s) = %s, %v", in, got, err)
		}
	}
	if _, err := nostr.ParseEventRef("zz"); err == nil {
		t.Error("garbage accepted")
	}
}
