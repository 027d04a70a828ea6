package site

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/ratings"
)

// Payloads a relay may carry. If any of them reached a page unescaped, a
// script would run. The witnesses it would leave, a title of PWNED and a
// data-pwned attribute on the body, are built by concatenation, so they
// cannot appear in a page merely as escaped text (the browser test looks
// for them).
const (
	pwnJS      = `document.title='PW'+'NED';document.body.setAttribute('data-'+'pwned','1')`
	pwnScript  = `<script>` + pwnJS + `</script>`
	pwnImg     = `"><img src=x onerror="` + pwnJS + `">`
	pwnSVG     = `<svg onload="` + pwnJS + `"></svg>`
	pwnAttr    = `' onmouseover='` + pwnJS + `' x='`
	pwnStyle   = `</style><script>` + pwnJS + `</script>`
	pwnComment = `--><script>` + pwnJS + `</script><!--`
	bidi       = "\u202Eevil\u202C \u2066isolate\u2069 \u200Fmark"
	broken     = "bad \xff\xfe utf-8 \xc3"
)

var (
	mallory = testkit.Key("mallory")
	trudy   = testkit.Key("trudy")
	hugeKey = testkit.Key("huge")
	// impostor names itself like the house, keyName like the house's npub.
	impostor = testkit.Key("impostor")
	keyName  = testkit.Key("key-name")
)

func hostileJSON(fields ...string) string {
	b := []byte{'{'}
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = nostr.AppendString(b, fields[i])
		b = append(b, ':')
		b = nostr.AppendString(b, fields[i+1])
	}
	return string(append(b, `,"bot":true}`...))
}

// hostileInput is a world where every string that comes from a relay tries
// to break out of its context.
func hostileInput(t testing.TB) Input {
	t.Helper()
	var states []*match.State

	// Mallory v Alice, chess: hostile moves, result, request.
	m := testkit.NewMatch(mallory, alice, "chess", "", t0)
	m.Accept(t0 + 10)
	m.Move(mallory, 1, pwnScript, t0+20)
	m.Move(mallory, 1, bidi, t0+21)
	m.Move(mallory, 1, strings.Repeat("A", 60000), t0+22)
	m.Move(mallory, 1, "e2e4 "+pwnImg, t0+30) // chess.js reads e2e4 and ignores the rest
	m.Move(alice, 2, "e7e5", t0+40)
	m.Move(mallory, 3, pwnSVG, t0+50)
	m.Result(mallory, nostr.Result{Result: "draw", Reason: pwnScript, Plies: 2, FinalHash: pwnImg}, t0+60)
	m.Add(mallory, &nostr.Event{Kind: nostr.KindResult, CreatedAt: nostr.Timestamp(t0 + 61),
		Tags: nostr.Tags{{"g", m.ID}}, Content: `{"result":"` + pwnAttr + `","reason":"x","plies":0,"final_hash":""}`})
	m.Add(mallory, &nostr.Event{Kind: nostr.KindRequest, CreatedAt: nostr.Timestamp(t0 + 62),
		Tags: nostr.Tags{{"g", m.ID}, {"x", pwnScript}}, Content: pwnComment + broken})
	states = append(states, foldT(t, m))

	// Trudy's open gomoku challenge carries extra fields and tags.
	ch := &nostr.Event{Kind: nostr.KindChallenge, CreatedAt: nostr.Timestamp(now - 100),
		Tags:    nostr.Tags{{"t", nostr.GamesTopic}, {"x", pwnScript}, {"name", pwnImg}},
		Content: `{"game":"gomoku","note":` + string(nostr.AppendString(nil, pwnStyle+bidi)) + `}`}
	testkit.Sign(trudy, ch)
	s, err := match.Fold(ch.ID, []*nostr.Event{ch}, nil)
	if err != nil {
		t.Fatal(err)
	}
	states = append(states, s)

	// A final gomoku game so the hostile names reach the ratings pages.
	m = testkit.NewMatch(trudy, hugeKey, "gomoku", "", t0+100)
	m.Accept(t0 + 110)
	last := m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, t0+120, 10)
	s = foldT(t, m)
	m.Result(trudy, result(s, "first", "five_in_a_row"), last+1)
	m.Result(hugeKey, result(s, "first", "five_in_a_row"), last+2)
	s = foldT(t, m)
	states = append(states, s)
	// Its analysis, and a chess game's, come from an engine that names
	// itself with markup and grades moves with it (issue 18): the pages
	// must show it as text.
	analyses := map[string]*analysis.Game{}
	g := testAnalysis(s, nil, gomokuPlies(9, map[int]testPly{6: {tag: analysis.TagBlunder, best: pwnAttr}}))
	g.Engine = analysis.Engine{Name: pwnScript, Version: pwnSVG + bidi}
	analyses[s.Match] = g
	m = testkit.NewMatch(mallory, alice, "chess", "", t0+200)
	m.Accept(t0 + 210)
	last = m.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+220, 10)
	s = foldT(t, m)
	m.Result(mallory, result(s, "second", "checkmate"), last+1)
	m.Result(alice, result(s, "second", "checkmate"), last+2)
	s = foldT(t, m)
	states = append(states, s)
	g = testAnalysis(s, cp(20), []testPly{{after: cp(-50), best: pwnScript}, {after: cp(-60), best: pwnImg}, {after: mate(-1), best: pwnComment + broken}, {}})
	g.Engine = analysis.Engine{Name: pwnStyle + bidi, Version: pwnImg + strings.Repeat("V", 300), Depth: 1}
	for i := range g.Moves {
		g.Moves[i].Move = pwnSVG // analysis.json says what the engine said; pages show their own replay
	}
	analyses[s.Match] = g

	// Table talk and reasoning (section 8): hostile comments, reasoning,
	// usage and attempts on every move, revealed after the game, and a
	// hostile reveal entry that names nothing.
	m = testkit.NewMatch(mallory, alice, "chess", "", t0+300)
	m.Accept(t0 + 310)
	talkText := []string{pwnScript, pwnImg + bidi, pwnSVG + "\n" + pwnComment, pwnStyle + broken}
	var entries []nostr.RevealEntry
	for i, mv := range []string{"f3", "e5", "g4", "Qh4#"} {
		k := mallory
		if i%2 == 1 {
			k = alice
		}
		salt := nostr.NewSalt()
		ev := nostr.WithTalk(nostr.NewMove(m.ID, i+1, mv, t0+320+int64(i)), nostr.Talk{
			Comment: talkText[(i+1)%4] + strings.Repeat("C", 400), Reasoning: nostr.ReasoningHash(salt, talkText[i])})
		ev.Tags = append(ev.Tags, []string{nostr.UsageTag, `{"input_tokens":"` + pwnScript + `"}`}, []string{nostr.AttemptsTag, pwnImg})
		ev = m.Add(k, ev)
		if k == mallory {
			entries = append(entries, nostr.RevealEntry{Event: ev.ID, Salt: salt, Text: talkText[i]})
		}
	}
	entries = append(entries, nostr.RevealEntry{Event: strings.Repeat("e", 64), Salt: strings.Repeat("0", 32), Text: pwnScript})
	rv, err := nostr.NewReveal(m.ID, entries, t0+400)
	if err != nil {
		t.Fatal(err)
	}
	m.Add(mallory, rv[0])
	states = append(states, foldT(t, m))

	// Authors who play nowhere: a stranger's move, a third-party ruling.
	states = append(states, foldT(t, strangersMatch(t)))

	// Impostors: one named like the house, one named like the house's
	// short npub, each with an open challenge so they reach the index.
	for i, k := range []nostr.SecretKey{impostor, keyName} {
		ch := testkit.Sign(k, nostr.NewChallenge("chess", "", now-50-int64(i)))
		s, err := match.Fold(ch.ID, []*nostr.Event{ch}, nil)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s)
	}

	// A state whose id is not hex must never become a path, and a state
	// not made by the fold must not crash the build.
	states = append(states, &match.State{Match: "../../../etc/passwd", Kind: "chess"}, nil,
		&match.State{Match: strings.Repeat("ab", 32), Kind: "chess"})

	profiles := map[string]Profile{
		mallory.PublicKey(): ParseProfile(strings.TrimSuffix(hostileJSON("name", pwnScript, "about", pwnImg+"\n"+pwnSVG+"\n"+bidi,
			"website", "javascript:"+pwnJS, "picture", "data:image/svg+xml,"+pwnSVG), "}") +
			`,"agent":` + hostileJSON("model", pwnScript+bidi, "provider", pwnImg, "harness", pwnAttr, "version", broken) + "}"),
		trudy.PublicKey(): ParseProfile(hostileJSON("name", bidi+pwnAttr, "about", pwnStyle+pwnComment,
			"website", `https://evil.example/"><script>document.title='PWNED'</script>`)),
		// Built directly, as a caller might: broken UTF-8 and a 100 KB name
		// must be cleaned at render time too.
		hugeKey.PublicKey(): {Name: strings.Repeat("A", 100000) + broken, About: broken + pwnScript,
			Website: "JaVaScRiPt:alert(1)", Bot: true},
		alice.PublicKey():    ParseProfile(`{"name":"Alice","bot":true,"website":"data:text/html,` + strings.ReplaceAll(pwnScript, `"`, `\"`) + `"}`),
		daemon.PublicKey():   ParseProfile(`{"name":"vesper house","bot":true}`),
		impostor.PublicKey(): ParseProfile(`{"name":"vesper house","bot":true,"about":"the real house"}`),
		keyName.PublicKey():  ParseProfile(`{"name":"` + shortNpub(nostr.Npub(daemon.PublicKey())) + `","bot":true}`),
	}
	rg := RatingGames(states)
	tables := map[string][]ratings.Player{"gomoku": ratings.Table("gomoku", rg["gomoku"], ratings.LichessParams())}
	// A ratings table handed over from elsewhere may hold anything.
	tables["chess"] = []ratings.Player{{Pubkey: "../../evil", Rating: 1500, RD: 50, Games: 1, Wins: 1}}
	// Relays a daemon following strangers' relay lists may have fetched
	// the challenges from: valid URLs with markup in their path, and
	// things that are no relay URL at all.
	relays := map[string][]string{}
	for _, s := range states {
		if s != nil {
			relays[s.Match] = []string{"wss://evil.example/" + pwnScript, "wss://evil.example/" + pwnAttr + bidi,
				"wss://" + pwnImg, "javascript:" + pwnJS, "wss://evil.example/" + broken, "wss://e.example/" + strings.Repeat("B", 230)}
		}
	}
	return Input{States: states, Profiles: profiles, Now: now, Daemon: daemon.PublicKey(), Ratings: tables, Analyses: analyses, Relays: relays}
}

// sitePath is every path a build may produce: fixed names and hex ids.
// The games' part of it is the registry's kinds.
var sitePath = regexp.MustCompile(`^(index\.html|style\.css|game\.css|how-to-play\.html|protocol\.(html|md)|ratings\.json|matches\.json|\.manifest|\.cards|ratings/(` + kindsAlt + `)\.html|archive/(` + kindsAlt + `)(-unlisted)?-[1-9][0-9]*\.html|m/[0-9a-f]{64}\.(html|json|pgn|analysis\.json|reasoning\.json)|p/[0-9a-f]{64}\.html|models\.(html|json)|h/[0-9a-f]{64}-[0-9a-f]{64}\.html)$`)

var kindsAlt = strings.Join(match.GameKinds(), "|")

// TestHostileContent builds the hostile world and checks that no payload
// reaches a page in a form a browser would act on.
func TestHostileContent(t *testing.T) {
	in := hostileInput(t)
	out, st := buildFixture(t, in)
	if st.Skipped != 3 {
		t.Errorf("Skipped = %d, want 3 (the non-hex id, the nil state, the hand-made state)", st.Skipped)
	}
	lintSite(t, out)

	rawPayloads := []string{"<script", "<img", "<svg onload", "<iframe", "javascript:", "data:text/html", "data:image/svg"}
	var sawEscaped bool
	impostorShown := 0
	out, err := filepath.EvalSymlinks(out)
	if err != nil {
		t.Fatal(err)
	}
	files, analysisFiles, reasoningFiles := 0, 0, 0
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		if !sitePath.MatchString(rel) {
			t.Errorf("unexpected path %q", rel)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		if !strings.HasSuffix(rel, ".html") {
			if strings.HasSuffix(rel, ".pgn") {
				checkPGN(t, rel, data)
			}
			if strings.HasSuffix(rel, ".analysis.json") {
				analysisFiles++
				checkAnalysisJSON(t, rel, data)
			}
			if strings.HasSuffix(rel, ".reasoning.json") {
				reasoningFiles++
				checkReasoningJSON(t, rel, data)
			}
			return nil
		}
		if !utf8.Valid(data) {
			t.Errorf("%s: invalid UTF-8", rel)
		}
		lower := bytes.ToLower(data)
		for _, p := range rawPayloads {
			if bytes.Contains(lower, []byte(p)) {
				t.Errorf("%s: contains %q unescaped", rel, p)
			}
		}
		for _, r := range []rune{0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f} {
			if bytes.ContainsRune(data, r) {
				t.Errorf("%s: contains bidi control U+%04X", rel, r)
			}
		}
		if bytes.Contains(data, []byte(strings.Repeat("A", 200))) {
			t.Errorf("%s: the 100 KB name was not cut", rel)
		}
		if len(data) > 300<<10 {
			t.Errorf("%s: %d bytes", rel, len(data))
		}
		if bytes.Contains(data, []byte("&lt;script&gt;document.title=")) {
			sawEscaped = true
		}
		// Only the house's own key carries the house's mark, and every
		// impostor's name is flagged wherever it appears.
		for _, w := range whoSpans(string(data)) {
			if strings.Contains(w, `class="tag house"`) && !strings.Contains(w, "p/"+daemon.PublicKey()+".html") {
				t.Errorf("%s: the house's mark on another account: %s", rel, w)
			}
			for _, k := range []nostr.SecretKey{impostor, keyName} {
				if strings.Contains(w, "p/"+k.PublicKey()+".html") {
					impostorShown++
					if !strings.Contains(w, `class="tag warn"`) {
						t.Errorf("%s: impostor not flagged: %s", rel, w)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 10 {
		t.Fatalf("only %d files checked", files)
	}
	if reasoningFiles != 1 {
		t.Errorf("%d reasoning.json files, want the hostile game's", reasoningFiles)
	}
	if analysisFiles != 2 {
		t.Errorf("%d analysis.json files, want the 2 hostile analyses", analysisFiles)
	}
	if impostorShown < 4 {
		t.Errorf("the impostors appear %d times; want them on the index and their match pages", impostorShown)
	}
	if !sawEscaped {
		t.Error("the script payload never appears escaped: was user content dropped instead of shown?")
	}
	page, err := os.ReadFile(filepath.Join(out, "p", trudy.PublicKey()+".html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(`href="https://evil.example/%22%3E%3Cscript%3Edocument.title=%27PWNED%27%3C/script%3E"`)) {
		t.Error("trudy's https website is not linked with its special characters percent-encoded")
	}
}

// checkAnalysisJSON: an analysis.json full of markup is valid JSON that
// holds no raw HTML character, so no browser can take it for a page.
func checkAnalysisJSON(t *testing.T, rel string, data []byte) {
	t.Helper()
	var g analysis.Game
	if err := json.Unmarshal(data, &g); err != nil {
		t.Errorf("%s: %v", rel, err)
	}
	if bytes.ContainsAny(data, "<>&") {
		t.Errorf("%s: raw HTML characters", rel)
	}
	if !utf8.Valid(data) {
		t.Errorf("%s: invalid UTF-8", rel)
	}
}

// checkReasoningJSON: a reasoning.json holding markup (revealed texts)
// is valid JSON with no raw HTML character, and still gives the text.
func checkReasoningJSON(t *testing.T, rel string, data []byte) {
	t.Helper()
	var f reasoningFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Errorf("%s: %v", rel, err)
	}
	if bytes.ContainsAny(data, "<>&") {
		t.Errorf("%s: raw HTML characters", rel)
	}
	shown := 0
	for _, e := range f.Entries {
		if e.Text != nil && strings.Contains(*e.Text, "<") {
			shown++
		}
	}
	if shown != 2 {
		t.Errorf("%s: %d verified hostile texts, want mallory's 2: %s", rel, shown, data)
	}
}

// checkPGN makes sure a name cannot end a tag early and forge another.
func checkPGN(t *testing.T, rel string, data []byte) {
	t.Helper()
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "[") {
			continue
		}
		// A tag line is [Name "value"] with quotes inside escaped.
		body := strings.TrimSuffix(strings.TrimPrefix(line, "["), "]")
		_, val, ok := strings.Cut(body, " ")
		if !ok || !strings.HasPrefix(val, `"`) || !strings.HasSuffix(val, `"`) {
			t.Errorf("%s: malformed tag line %q", rel, line)
			continue
		}
		inner := val[1 : len(val)-1]
		for i := 0; i < len(inner); i++ {
			if inner[i] == '\\' {
				i++
				continue
			}
			if inner[i] == '"' {
				t.Errorf("%s: unescaped quote in %q", rel, line)
			}
		}
	}
}

func TestParseProfile(t *testing.T) {
	cases := []struct {
		name, content string
		want          Profile
	}{
		{"plain", `{"name":"Ann","about":"hi","website":"https://ann.example/x","bot":true}`,
			Profile{Name: "Ann", About: "hi", Website: "https://ann.example/x", Bot: true}},
		{"display_name fallback", `{"display_name":"Bo"}`, Profile{Name: "Bo"}},
		{"bot must be true", `{"name":"C","bot":"true"}`, Profile{Name: "C"}},
		{"javascript website", `{"website":"javascript:alert(1)"}`, Profile{}},
		{"http website", `{"website":"http://plain.example/"}`, Profile{}},
		{"credentials", `{"website":"https://u:p@x.example/"}`, Profile{}},
		{"space inside", `{"website":"https://x.example/a b"}`, Profile{}},
		{"data picture", `{"picture":"data:image/png;base64,AAAA"}`, Profile{}},
		{"bidi and controls", `{"name":"a\u202eb\u0000c\nd"}`, Profile{Name: "abc d"}},
		{"not an object", `["name"]`, Profile{}},
		{"not JSON", `{name:`, Profile{}},
		{"long name", `{"name":"` + strings.Repeat("é", 100) + `"}`, Profile{Name: strings.Repeat("é", maxName) + "…"}},
		{"about keeps newlines", `{"about":"a\nb\r\nc"}`, Profile{About: "a\nb \nc"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ParseProfile(c.content); got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
