package match

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"vesper/nostr"
)

// FuzzParseFile: any bytes are a match.json or an error, never a panic
// (section 6), and a file that holds a match folds to the same summary
// whatever the order of its events and however many times each is there
// (section 2: "the same set of events, delivered in any order, by any
// number of relays, any number of times, yields the same state"). Seeds:
// the conformance sample, whose signed events survive mutations of the
// rest of the file (seen_at, match, unknown keys).
func FuzzParseFile(f *testing.F) {
	files, _ := filepath.Glob("testdata/conformance/m-*.json")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"match":null,"events":[],"seen_at":{"x":1e400}}`))
	f.Add([]byte(`{"events":{},"seen_at":[]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseFile(data)
		if err != nil {
			return
		}
		id := file.Match
		if id == "" {
			if id, err = FindChallenge(file.Events); err != nil {
				return
			}
		}
		s, err := Fold(id, file.Events, file.SeenAt)
		if err != nil {
			return
		}
		now := file.Now(s)
		want := MarshalLine(s.Summary(now))

		reversed := slices.Clone(file.Events)
		slices.Reverse(reversed)
		twice := append(slices.Clone(file.Events), reversed...)
		for name, evs := range map[string][]*nostr.Event{"reversed": reversed, "each twice": twice} {
			again, err := Fold(id, evs, file.SeenAt)
			if err != nil {
				t.Fatalf("%s: the events no longer make a match: %v", name, err)
			}
			if got := MarshalLine(again.Summary(now)); !bytes.Equal(got, want) {
				t.Fatalf("%s: summary\n%s\nwant\n%s", name, got, want)
			}
		}
	})
}
