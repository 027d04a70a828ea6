package nostr

import "testing"

// BenchmarkParseAndVerify: one move event from its raw JSON, the work a
// cold rebuild with signature checks does per event before the fold.
func BenchmarkParseAndVerify(b *testing.B) {
	k := GenerateKey()
	ev := NewMove("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", 12, "e2e4", 1700000000)
	if err := k.Sign(ev); err != nil {
		b.Fatal(err)
	}
	raw := MarshalEvent(ev)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAndVerify(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseEvent: the strict parse alone, of a move event.
func BenchmarkParseEvent(b *testing.B) {
	k := GenerateKey()
	ev := NewMove("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", 12, "e2e4", 1700000000)
	if err := k.Sign(ev); err != nil {
		b.Fatal(err)
	}
	raw := MarshalEvent(ev)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseEvent(raw); err != nil {
			b.Fatal(err)
		}
	}
}
