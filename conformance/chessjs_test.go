package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"vesper/conformance/chessjs"
)

// loadPGNs has chess.js 1.4.0 loadPgn every PGN; it skips the test when
// node or chess.js is missing (CI installs both).
func loadPGNs(t *testing.T, pgns map[string]string) map[string]chessjs.Loaded {
	t.Helper()
	got, err := chessjs.LoadPGNs(context.Background(), pgns)
	if errors.Is(err, chessjs.ErrNotInstalled) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// standardTags reads the tag pairs of a PGN as the PGN standard does
// (section 7: in a string, \" is a quote and \\ a backslash), to compare
// with what chess.js read: a value must read the same in both.
func standardTags(text string) (map[string]string, error) {
	tags := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			break // the empty line after the tag pair section
		}
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "["), " ")
		if !ok || !strings.HasPrefix(line, "[") || !strings.HasPrefix(rest, `"`) {
			return nil, fmt.Errorf("not a tag line: %q", line)
		}
		var v strings.Builder
		i := 1
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
			}
			v.WriteByte(rest[i])
		}
		if rest[i:] != `"]` {
			return nil, fmt.Errorf("tag line %q goes on after its value: %q", line, rest[i:])
		}
		tags[name] = v.String()
	}
	return tags, nil
}
