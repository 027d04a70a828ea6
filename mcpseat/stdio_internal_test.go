package mcpseat

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestLineFilter: lines over MaxLine are answered -32700 and skipped whole
// (also past bufio's buffer), blank lines are skipped, CRLF is accepted,
// and good lines pass one per line with their ends normalised.
func TestLineFilter(t *testing.T) {
	good := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	in := strings.Join([]string{
		strings.Repeat("x", 200), good, "", "   ", strings.Repeat("y", 100) + "\r", good + "\r", `{"jsonrpc":"2.0","id":"a","method":3}`, good,
	}, "\n")
	pr, pw := io.Pipe()
	var replies bytes.Buffer
	f := &lineFilter{in: bufio.NewReaderSize(strings.NewReader(in), 16), pass: pw, reply: &replies, maxLine: 64}
	go f.run()
	passed, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat(good+"\n", 3); string(passed) != want {
		t.Errorf("passed %q, want %q", passed, want)
	}
	got := strings.Split(strings.TrimSpace(replies.String()), "\n")
	if len(got) != 3 || !strings.Contains(got[0], `"code":-32700`) || !strings.Contains(got[1], `"code":-32700`) ||
		!strings.Contains(got[2], `"id":"a"`) || !strings.Contains(got[2], `"code":-32600`) {
		t.Errorf("replies %q, want two -32700 (long lines) and one -32600 with id \"a\"", got)
	}
}
