package prose

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vesper/match"
	"vesper/nostr"
	"vesper/seat"
)

// dur is a stated duration: a number and a unit, or "an hour".
const dur = `(\d+[- ]?(?:hours?|h|days?|d|minutes?|min|m|seconds?|s)|an hour|one hour)\b`

// rule is one constant and the sentences that state it: each pattern's
// first group is the stated value (a duration, or a count when count is
// set).
type rule struct {
	name     string
	value    int64 // seconds, or a count
	count    bool
	patterns []string
}

func rules() []rule {
	return []rule{
		{name: "match.MoveClock", value: match.MoveClock, patterns: []string{
			dur + ` clock`, dur + ` per move`, `move has ` + dur, `end \+ ` + dur,
			`\(` + dur + ` after the pending`, `not sign within ` + dur,
			`clock_start \+ (\d+)\b`, dur + ` after the clock started`,
			"Span\\(match\\.MoveClock\\)` is \"" + dur,
		}},
		{name: "match.ChallengeExpiry", value: match.ChallengeExpiry, patterns: []string{
			`within ` + dur + `[;.]`, `nobody accepted within ` + dur + `:`, `in ` + dur + `\.`, `expires ` + dur, dur + ` expiry`,
			`challenges of the last ` + dur, `\(last ` + dur + `, (?:not accepted|unaccepted)\)`,
			`expires ` + dur + ` \((\d+) s\)`, `created_at \+ (\d+)\b`,
			`Challenge: ` + dur + ` \(`, // a mutant's clause (scripts/mutate)
		}},
		{name: "match.FutureSlack", value: match.FutureSlack, patterns: []string{
			`stamped (?:at )?(?:more than |at most )?` + dur + ` (?:after|ahead)`,
			`seen_at \+ (\d+)\b`, `stamped more than (\d+) s after`,
		}},
		{name: "match.HouseWait", value: match.HouseWait, patterns: []string{
			`nobody (?:took|accepts) (?:within|for) ` + dur, `nobody accepted this open challenge within ` + dur,
			`nobody accepted within ` + dur + `, so`,
			`unaccepted ` + dur + ` after`, `\(` + dur + ` after it was posted\)`, `open challenge after ` + dur,
		}},
		{name: "match.FallbackRuling", value: match.FallbackRuling, patterns: []string{
			`rules (?:within )?` + dur + ` after`, `no correct ruling for ` + dur, `unanswered for ` + dur,
			`rules within the hour()`,
		}},
		{name: "seat.RevealAfter", value: int64(seat.RevealAfter / time.Second), patterns: []string{
			`over for ` + dur, `or ` + dur + ` after the end`,
		}},
		{name: "nostr.MaxCommentShown", value: nostr.MaxCommentShown, count: true, patterns: []string{
			`\((\d+) (?:code points|characters) shown\)`, `cut (?:at|to) (\d+) (?:code points|characters)`,
			`at most (\d+) Unicode code points are shown`, `comment[^.]*? at most (\d+) code points`,
			`\(at most (\d+) code points`, `talk of up to (\d+) code points`,
		}},
	}
}

// seconds reads a stated duration; "" (a pattern that names no number,
// such as "within the hour") is an hour.
func seconds(s string) (int64, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" || s == "an hour" || s == "one hour" {
		return 3600, true
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	switch strings.TrimLeft(s[i:], "- ") {
	case "", "s", "second", "seconds":
		return n, true
	case "m", "min", "minute", "minutes":
		return n * 60, true
	case "h", "hour", "hours":
		return n * 3600, true
	case "d", "day", "days":
		return n * 86400, true
	}
	return 0, false
}

// spellings are the ways a sentence may spell the value now, which every
// hit must be claimed by a rule's pattern (or listed in elsewhere).
func spellings(r rule) *regexp.Regexp {
	if r.count {
		return regexp.MustCompile(`(?:^|[^\d.,])(` + strconv.FormatInt(r.value, 10) + ` (?:Unicode )?(?:code points|characters))`)
	}
	var alts []string
	v := r.value
	if v%86400 == 0 {
		alts = append(alts, strconv.FormatInt(v/86400, 10)+`[- ]?days?\b`)
	}
	if v%3600 == 0 {
		alts = append(alts, strconv.FormatInt(v/3600, 10)+`[- ]?hours?\b`)
		if v == 3600 {
			alts = append(alts, `an hour\b`, `one hour\b`)
		}
	}
	if v%60 == 0 {
		alts = append(alts, strconv.FormatInt(v/60, 10)+`[- ]?minutes?\b`)
	}
	// Group 1 is the spelling; what comes before it is not part of a
	// number ("14.5 minutes" does not spell 5 minutes).
	return regexp.MustCompile(`(?i)(?:^|[^\d.,\w])(` + strings.Join(alts, "|") + `)`)
}

// elsewhere are spellings of a current value that mean something else:
// file and the text around the hit.
var elsewhere = []struct{ file, near string }{
	{"docs/OPERATING.md", "waits up to 30 minutes after the result"},      // the archive's wait for names
	{"docs/OPERATING.md", "with a 7-day trend"},                           // the ratings' trend
	{"nostr/relay/reconcile/split.go", "for a window of an hour or less"}, // the smallest window a sync splits
}

// text is one file's user-facing text, whitespace folded to single spaces
// (a sentence may break a line between a number and its unit).
type text struct {
	file, body string
}

func corpus(t *testing.T) []text {
	t.Helper()
	root := filepath.Join("..", "..")
	var out []text
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			// scripts are tools for contributors; testdata is generated
			// from the templates read here.
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || rel(root, path) == "scripts") {
				return filepath.SkipDir
			}
			return nil
		}
		var body string
		switch {
		case strings.HasSuffix(name, "_test.go"), name == "PERFORMANCE.md": // figures, not rules
			return nil
		case strings.HasSuffix(name, ".go"):
			body = goStrings(t, path)
		case strings.HasSuffix(name, ".html"), strings.HasSuffix(name, ".md"):
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			body = string(b)
		default:
			return nil
		}
		out = append(out, text{file: rel(root, path), body: strings.Join(strings.Fields(body), " ")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rel(root, path string) string {
	r, _ := filepath.Rel(root, path)
	return filepath.ToSlash(r)
}

// goStrings is the string literals of a Go file, one a line, unquoted.
func goStrings(t *testing.T, path string) string {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile(path, -1, len(src)), src, nil, 0)
	var b strings.Builder
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return b.String()
		}
		if tok == token.STRING {
			if u, err := strconv.Unquote(lit); err == nil {
				lit = u
			}
			b.WriteString(lit)
			b.WriteString("\n")
		}
	}
}

type hit struct{ start, end int }

// TestProseFollowsConstants: every sentence that states one of the
// protocol's numbers states its constant's value.
func TestProseFollowsConstants(t *testing.T) {
	texts := corpus(t)
	// A sentence one rule reads may spell another rule's value (the
	// fallback ruling and the reveal delay are both an hour).
	claimed := map[string][]hit{}
	for _, r := range rules() {
		for _, p := range r.patterns {
			re := regexp.MustCompile(`(?i)` + p)
			for _, tx := range texts {
				for _, m := range re.FindAllStringSubmatchIndex(tx.body, -1) {
					stated := tx.body[m[2]:m[3]]
					var got int64
					ok := true
					if r.count {
						got, _ = strconv.ParseInt(stated, 10, 64)
					} else {
						got, ok = seconds(stated)
					}
					if !ok || got != r.value {
						t.Errorf("%s: %q states %q, but %s is %d", tx.file, around(tx.body, m[0], m[1]), stated, r.name, r.value)
					}
					claimed[tx.file] = append(claimed[tx.file], hit{m[0], m[1]})
				}
			}
		}
	}
	for _, r := range rules() {
		sp := spellings(r)
		for _, tx := range texts {
			for _, sm := range sp.FindAllStringSubmatchIndex(tx.body, -1) {
				m := sm[2:4]
				if !covered(claimed[tx.file], m) && !isElsewhere(tx, m) {
					t.Errorf("%s: %q spells %s's value in a sentence no pattern of its rule reads: add one to rules() (or to elsewhere, if it means something else)",
						tx.file, around(tx.body, m[0], m[1]), r.name)
				}
			}
		}
	}
}

func covered(hits []hit, m []int) bool {
	for _, h := range hits {
		if h.start <= m[0] && m[1] <= h.end {
			return true
		}
	}
	return false
}

func isElsewhere(tx text, m []int) bool {
	ctx := around(tx.body, m[0], m[1])
	for _, e := range elsewhere {
		if e.file == tx.file && strings.Contains(ctx, e.near) {
			return true
		}
	}
	return false
}

func around(s string, i, j int) string {
	return s[max(0, i-40):min(len(s), j+40)]
}
