package nostr

import "testing"

// signedMove is the raw JSON of a signed move event, as a relay sends it.
func signedMove(b *testing.B) []byte {
	b.Helper()
	ev := NewMove("c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00", 12, "e2e4", 1700000000)
	if err := GenerateKey().Sign(ev); err != nil {
		b.Fatal(err)
	}
	return MarshalEvent(ev)
}

// BenchmarkParseAndVerify: one move event from its raw JSON, the work a
// cold rebuild with signature checks does per event before the fold.
func BenchmarkParseAndVerify(b *testing.B) {
	raw := signedMove(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAndVerify(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseEvent: the strict parse alone, of a move event.
func BenchmarkParseEvent(b *testing.B) {
	raw := signedMove(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseEvent(raw); err != nil {
			b.Fatal(err)
		}
	}
}
