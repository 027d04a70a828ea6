package site

import (
	"html/template"
	"strconv"
	"strings"

	"vesper/match"
	"vesper/nostr"
	"vesper/reveal"
)

// Section 8 on the match page (PROTOCOL.md revision 3): each move's table
// talk, its committed reasoning as the reveal package checked it, and the
// effort the player reports. All of it is what the players say: comments
// and reasoning are relay text, cleaned and escaped by the template like a
// name; attempts and usage are marked self-reported and an absent value is
// shown as absent, never as zero. Reasoning text is shown only once the
// game is over, whatever was revealed during it: the page of a live game
// must not be where the opponent reads it.

// maxReasoning bounds the reasoning text a page shows, in runes; the whole
// text is in reasoning.json and match.json.
const maxReasoning = 20000

// planRule states the plan-to-move check (reveal.NamesMove) where its
// verdicts are shown.
const planRule = "A verified reasoning names the move when one of its words (a run of letters, digits and + # = -) is the move played in SAN, with any + or # left off, or in UCI; castling may be written with zeros. The check is textual: it says whether the plan mentions the move, not whether the move was good."

// talkView is the match page's section on table talk and reasoning.
type talkView struct {
	Rows    []talkRow
	Players [2]talkSummary
	Ignored []talkIgnored
	Over    bool   // reasoning text and plan checks are shown
	Href    string // reasoning.json, "" when the match has none
	Rule    string
}

// Shown says whether the match has anything of section 8 to show.
func (t *talkView) Shown() bool { return len(t.Rows) > 0 || len(t.Ignored) > 0 }

// talkRow is one move or result that carries section 8 tags.
type talkRow struct {
	ID, Short string
	// Anchor names the move's rows: its talk row is "talk-" and this, its
	// event's row "ev-" and this (eventAnchors).
	Anchor    string
	Label     string // "3. Nf3", "result", "ignored move"
	Side      string
	Who       template.HTML
	Counted   bool
	Comment   string
	Cut       bool
	Attempts  string // "" when not reported
	BadTag    string // why a malformed attempts or usage tag shows nothing
	Usage     string // "" when not reported
	Committed bool
	Status    string // the reveal package's token
	Mark      string // the status in words
	Text      string // the verified reasoning, only once the game is over
	TextCut   bool
	Plan      string // "names the move", "does not name the move", ""
	// Ply is the counted move's ply (0: a result or an ignored move), where
	// the replay shows the talk too; Fallback is the fallback tag's kind
	// (section 8.3 revision 3.1), "" for none.
	Ply      int
	Fallback string
	// Head is the start of a long reasoning, shown while the rest is
	// folded (Long).
	Head string
	Long bool
}

// A reasoning longer than foldRunes, or of more than foldLines lines, is
// folded: its first lines show and the rest opens on demand.
const (
	foldRunes = 400
	foldLines = 6
)

// head is the start of a long text: at most foldLines lines and about
// foldRunes code points, ok false when the text is short enough to show
// whole.
func head(text string) (string, bool) {
	r := []rune(text)
	lines, cut := 0, -1
	for i, c := range r {
		if c == '\n' {
			lines++
			if lines == foldLines {
				cut = i
				break
			}
		}
	}
	if cut < 0 && len(r) <= foldRunes {
		return text, false
	}
	if cut < 0 || cut > foldRunes {
		cut = foldRunes
	}
	return strings.TrimRight(string(r[:cut]), " \n") + "…", true
}

type talkIgnored struct {
	Reveal, Short, Event, Reason string
	Anchor                       string // the reveal's row (eventAnchors)
	Who                          template.HTML
}

var statusMarks = map[reveal.Status]string{
	reveal.Verified:   "verified: the hash matches the signed move, so the text was fixed when the move was signed; that is all it proves, not who or what wrote it",
	reveal.Early:      "verified, but revealed during the game: the opponent could have read it",
	reveal.Mismatch:   "does not match: the revealed text does not hash to the commitment, so it is not shown as the player's",
	reveal.Unrevealed: "committed, not revealed",
}

// talk builds the section from the fold and the reveal check. sans are
// the replay's moves (SAN or point) by ply.
func (b *builder) talk(s *match.State, rep reveal.Report, sans []string, firstSide, secondSide string) talkView {
	v := talkView{Over: s.Over, Rule: planRule}
	if hasReasoning(s) {
		v.Href = s.Match + ".reasoning.json"
	}
	ply := map[string]int{}
	for i, id := range s.MoveEvents {
		ply[id] = i + 1
	}
	ignored := map[string]bool{}
	for _, ig := range s.Ignored {
		ignored[ig.ID] = true
	}
	t := tally(s, rep, sans)
	v.Players[0] = t[0].summary(firstSide, b.player(s.First).Who(matchRoot))
	v.Players[1] = t[1].summary(secondSide, b.player(s.Second).Who(matchRoot))
	for _, ev := range s.Events {
		if ev.Kind != nostr.KindMove && ev.Kind != nostr.KindResult {
			continue
		}
		row, ok := b.talkRow(s, ev, rep, ply[ev.ID], sans, !ignored[ev.ID])
		if !ok {
			continue
		}
		switch ev.PubKey {
		case s.First:
			row.Side = firstSide
		case s.Second:
			row.Side = secondSide
		}
		v.Rows = append(v.Rows, row)
	}
	for _, ig := range rep.Ignored {
		t := talkIgnored{Reveal: ig.Reveal, Short: shortID(ig.Reveal), Event: ig.Event, Reason: cleanLine(ig.Reason, 200)}
		for _, rv := range s.Reveals {
			if rv.ID == ig.Reveal {
				t.Who = b.author(s, rv.PubKey).Who(matchRoot)
			}
		}
		v.Ignored = append(v.Ignored, t)
	}
	return v
}

// talkRow is the row of one move or result, ok false when it carries no
// section 8 tag.
func (b *builder) talkRow(s *match.State, ev *nostr.Event, rep reveal.Report, n int, sans []string, counted bool) (talkRow, bool) {
	row := talkRow{ID: ev.ID, Short: shortID(ev.ID), Who: b.author(s, ev.PubKey).Who(matchRoot), Counted: counted}
	switch {
	case ev.Kind == nostr.KindResult:
		row.Label = "result"
	case n > 0 && n <= len(sans):
		row.Label = moveLabel(n, sans[n-1])
	case ev.Content == nostr.ResignContent && counted:
		row.Label = "resignation"
	default:
		row.Label = "ignored move: " + cleanLine(ev.Content, 20)
	}
	shown := false
	if text, cut := nostr.Comment(ev); text != "" {
		row.Comment, row.Cut, shown = cleanText(text, nostr.MaxCommentShown), cut, true
	}
	if row.effort(ev) {
		shown = true
	}
	if counted && n > 0 {
		row.Ply = n
	}
	if f, err := nostr.Fallback(ev); err == nil && f != "" {
		row.Fallback, shown = f, true
	}
	if e, ok := rep.Entry(ev.ID); ok {
		shown = true
		row.reasoning(s, e, n, sans, counted)
	}
	return row, shown
}

// effort shows the event's self-reported attempts and usage, or that a
// tag could not be read; it reports whether the event carries either.
func (row *talkRow) effort(ev *nostr.Event) bool {
	shown := false
	if k, present, err := nostr.Attempts(ev); present {
		shown = true
		if err != nil {
			row.BadTag = "attempts tag not read (malformed)"
		} else {
			row.Attempts = strconv.Itoa(k)
		}
	}
	if u, present, err := nostr.ReadUsage(ev); present {
		shown = true
		if err != nil {
			row.BadTag = strings.TrimPrefix(row.BadTag+"; ", "; ") + "usage tag not read (malformed)"
		} else {
			var parts []string
			for _, f := range u.Fields() {
				parts = append(parts, usageLabel(f.Key)+" "+number(f.Value))
			}
			row.Usage = strings.Join(parts, ", ")
		}
	}
	return shown
}

// reasoning shows a committing event's check: while the game is live only
// that there is a commitment, after it the text when verified, and
// whether it names the move (n: its ply when counted).
func (row *talkRow) reasoning(s *match.State, e reveal.Entry, n int, sans []string, counted bool) {
	row.Committed = true
	row.Status = string(e.Status)
	row.Mark = statusMarks[e.Status]
	if !s.Over {
		// Nothing of the text, nor of whether it names the move, while
		// the game is live.
		row.Mark = "committed: shown after the game"
		if e.Status == reveal.Early {
			row.Mark = "committed; revealed during the game, shown after it"
		}
		row.Status = "live"
		return
	}
	if e.Status != reveal.Verified && e.Status != reveal.Early {
		return
	}
	row.Text = cleanText(e.Text, maxReasoning)
	row.TextCut = row.Text != e.Text && len([]rune(e.Text)) > maxReasoning
	row.Head, row.Long = head(row.Text)
	if n > 0 && n <= len(sans) && counted {
		row.Plan = "does not name the move"
		if names(s, n, sans, e.Text) {
			row.Plan = "names the move"
		}
	}
}

// names applies the plan-to-move rule to counted ply n.
func names(s *match.State, n int, sans []string, text string) bool {
	uci := ""
	if s.Kind == nostr.GameChess {
		uci = s.Moves[n-1]
	}
	return reveal.NamesMove(text, sans[n-1], uci)
}

func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// anchor names the rows of the events table the talk links to, by
// eventAnchors (through the page's anchor).
func (t *talkView) anchor(of func(id string) string) {
	for i := range t.Rows {
		t.Rows[i].Anchor = of(t.Rows[i].ID)
	}
	for i := range t.Ignored {
		t.Ignored[i].Anchor = of(t.Ignored[i].Reveal)
	}
}

// byPly indexes the rows of counted moves by their ply, for the replay.
func (t *talkView) byPly() map[int]*talkRow {
	out := map[int]*talkRow{}
	for i := range t.Rows {
		if r := &t.Rows[i]; r.Ply > 0 {
			out[r.Ply] = r
		}
	}
	return out
}

// fallbacks names the fallback kinds the counted moves carry, in words.
func (t *talkView) fallbacks() string {
	random, engine := false, false
	for _, r := range t.Rows {
		random = random || (r.Ply > 0 && r.Fallback == nostr.FallbackRandom)
		engine = engine || (r.Ply > 0 && r.Fallback == nostr.FallbackEngine)
	}
	switch {
	case random && engine:
		return "at random or by an engine"
	case random:
		return "at random"
	case engine:
		return "by an engine"
	}
	return ""
}

// usageLabels name the usage tag's keys (section 8.3) for readers.
var usageLabels = map[string]string{"cost_usd": "cost (US$)", "latency_ms": "latency (ms)"}

// usageLabel is a usage key in words: "input tokens", "cost (US$)".
func usageLabel(k string) string {
	if l, ok := usageLabels[k]; ok {
		return l
	}
	return strings.ReplaceAll(k, "_", " ")
}
