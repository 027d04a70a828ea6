package site

import (
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"vesper/analysis"
	"vesper/match"
	"vesper/nostr"
	"vesper/reveal"
)

// matchPage is the view of m/<id>.html.
type matchPage struct {
	Root, Title string
	S           *match.State
	Game        string // "Chess" or "Gomoku"
	Clock       clock
	// Nevent is the challenge as a NIP-19 nevent with the relays Hints.
	Nevent string
	Hints  []string

	First, Second, Invitee player
	FirstSide, SecondSide  string // "White"/"Black"; gomoku: "Black"/"White" (stones)

	Expires, ClockRunsOut int64
	ToMove, Waiting       player
	ToMoveSide, WaitSide  string

	Winner     player
	WinnerSide string
	ResultCode string // 1-0, 0-1, ½-½
	ReasonText string
	Final      []evRef // what made the result final
	Sigs       []evRef // signatures so far while not final

	FinalText string // "two matching signatures", ...
	HouseMay  bool   // the house may accept this open challenge (now or later)
	HouseWont string // why the house's daemon decided not to (houseWont)

	Replay    replay
	Steps     template.HTML
	MovesHTML template.HTML
	Legend    template.HTML // what the move list's grade marks mean
	Grades    gradesView
	Highlight template.CSS
	PGN       string
	Events    []eventRow
	Ignored   []eventRow
	// EventsHTML and IgnoredHTML are their table rows (eventsTable).
	EventsHTML, IgnoredHTML template.HTML

	// Ratings of the two players at this game, when its result was rated.
	FirstRating, SecondRating gameRating
	// RanOut dates a timeout by the clock, not by its claim or ruling.
	RanOut template.HTML
	// RulingBy names an arbiter other than this site's house.
	RulingBy player
	// Talk is section 8: comments, committed reasoning, reported effort.
	Talk talkView
	// H2H links the two players' head-to-head series, "" before an accept.
	H2H string
	// Opening names a chess game's opening (nil: none known), Times is
	// how long each counted move took, House what a house game is (nil:
	// not one) and Cross the two players' crosstable (nil before an
	// accept).
	Opening *openingView
	Times   []int64
	// Fallbacks says which fallback kinds the game's moves carry, for the
	// dagger's note: "random", "engine", both, or "".
	Fallbacks string
	grades    []analysis.Move
	House     *houseView
	Cross     *crossView
	// rep is the reveal check the page and reasoning.json show.
	rep reveal.Report
	// anchors name each event's row (eventAnchors).
	anchors map[string]string
}

// gameRating is a player's rating before a rated game and the change it
// made, as Lichess shows beside the names.
type gameRating struct {
	Rated         bool
	Before, After int
	Change        string
}

// ratingAt finds the game in the player's history: the rating before it is
// the previous point's, or the start rating for a first game.
func (b *builder) ratingAt(kind, pk, id string) gameRating {
	p, ok := b.rated[kind][pk]
	if !ok || pk == "" {
		return gameRating{}
	}
	prev := b.params.Rating
	for _, h := range p.History {
		if h.Match == id {
			return gameRating{Rated: true, Before: round(prev), After: round(h.Rating), Change: signed(round(h.Rating) - round(prev))}
		}
		prev = h.Rating
	}
	return gameRating{}
}

// evRef names an event that did something, and who signed it.
type evRef struct {
	What string
	ID   string
	// Anchor is the event's row in the events table (eventAnchors).
	Anchor string
	By     player
}

// eventRow is one event of the match in fold order. A match shows a
// hundred of these or more, so what the rows print is computed here, not
// called from the template: a call through the template (reflect) cost
// more than the rest of the row at 10,000 pages.
// evDate is a time in the events table, whose cell does not wrap and whose
// heading says UTC: "2006-01-02 15:04", without the span and zone of date,
// twice on each of a long game's rows (issue 37).
func evDate(t int64) string { return time.Unix(t, 0).UTC().Format("2006-01-02 15:04") }

// seenAfter is how long after its created_at this verifier first
// received an event, as the move list words a move's time ("3s", "44d
// 2h"), and with a minus sign for one stamped later than it was received.
// A delay says at a glance what a second date (16 bytes on every row of
// the events table) left to subtraction: that an event came late, or is
// stamped in the future (issue 37).
func seenAfter(d int64) string {
	if d < 0 {
		return "−" + spent(-d)
	}
	return spent(d)
}

type eventRow struct {
	N        int
	ID       string
	Anchor   string // the row's name, "ev-" and this (eventAnchors)
	Short    string // the id's first characters, as "short" prints it
	Kind     string
	Who      template.HTML // the author, as player.Who at the match page's depth
	Created  template.HTML // the created_at, as evDate prints it
	SeenDate template.HTML // the seen_at after the created_at (seenAfter)
	SeenAt   int64
	Seen     bool
	// Use is what the fold did with the event, beside the counted move it
	// is (Ply > 0, Move its label as the replay's step shows it).
	Use     string
	Ply     int
	Move    string
	Ignored template.HTML // the reason in words, "" for a used event
	Token   string        // the fold's token for it
	Excerpt string
}

var kindNames = map[int]string{
	nostr.KindChallenge: "challenge", nostr.KindAccept: "accept", nostr.KindMove: "move",
	nostr.KindResult: "result", nostr.KindRequest: "arbitration request", nostr.KindRuling: "ruling",
	nostr.KindReveal: "reveal",
}

var reasonTexts = map[match.Reason]string{
	match.ReasonCheckmate: "checkmate", match.ReasonStalemate: "stalemate",
	match.ReasonThreefold: "threefold repetition", match.ReasonFiftyMoveRule: "the fifty-move rule",
	match.ReasonInsufficient: "insufficient material", match.ReasonFiveInARow: "five in a row",
	match.ReasonBoardFull: "a full board", match.ReasonResignation: "resignation",
	match.ReasonTimeout: "timeout", match.ReasonAgreement: "agreement",
}

var finalTexts = map[match.FinalBy]string{
	match.FinalBySignatures: "two matching signatures",
	match.FinalByTimeout:    "a valid timeout claim",
	match.FinalByRuling:     "an arbiter's ruling after an arbitration request",
}

func reasonText(r match.Reason) string {
	if t, ok := reasonTexts[r]; ok {
		return t
	}
	return cleanLine(string(r), 40)
}

// gameName is the game's name (match.Spec); a kind that is no game is
// shown as it was written, never as chess.
func gameName(kind string) string {
	if g, err := match.LookupGame(kind); err == nil {
		return g.Name
	}
	return cleanLine(kind, 40)
}

// sides names the two roles as a reader of that game knows them
// (match.Spec): the first player is White in chess and plays the black
// stones in gomoku; "First" and "Second" for a kind that is no game.
func sides(kind string) (first, second string) {
	g, err := match.LookupGame(kind)
	if err != nil {
		return "First", "Second"
	}
	return capital(g.Sides[0]), capital(g.Sides[1])
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// matchView is the view of a match page; g is the analysis to show, nil
// for none (matchFiles has checked that it fits the card).
func (b *builder) matchView(s *match.State, seenAt map[string]int64, g *analysis.Game) *matchPage {
	b.mu.Lock() // BuildEach adds cards while pages render
	c := b.byID[s.Match]
	b.mu.Unlock()
	v := &matchPage{
		Root: matchRoot, S: s, Game: gameName(s.Kind), Clock: matchClock(c, b.in.Now),
		First: b.player(s.First), Second: b.player(s.Second), Invitee: b.player(s.Invitee),
		Expires: s.Clock().Expires(),
	}
	v.FirstSide, v.SecondSide = sides(s.Kind)
	v.Hints = b.hints(c)
	v.Nevent = nevent(c, v.Hints)
	v.players(s)
	v.Times = moveTimes(s)
	b.movesAndGrades(s, c, g, v)
	if s.Final {
		v.FirstRating = b.ratingAt(s.Kind, s.First, s.Match)
		v.SecondRating = b.ratingAt(s.Kind, s.Second, s.Match)
	}
	v.FinalText = finalTexts[s.FinalBy]
	v.RanOut = ranOut(s, v.FirstSide, v.SecondSide)
	v.HouseMay = v.Clock.Status == match.StatusOpen && s.Invitee == "" && b.in.Daemon != "" && s.First != b.in.Daemon
	v.HouseWont = b.houseWont(s.Match)
	if s.Kind == nostr.GameChess {
		v.Opening = openingAt(b.openings, v.Replay.EPDs)
		if o := v.Opening; o != nil && o.Ply <= len(v.Replay.Moves) {
			o.Move = moveLabel(o.Ply, v.Replay.Moves[o.Ply-1])
		}
		v.PGN = matchPGN(s, v.Replay.Moves, v.First, v.Second, v.FirstRating, v.SecondRating, v.Opening)
	}
	v.House = b.houseGame(s)
	v.anchors = eventAnchors(s.FileEvents())
	b.finality(s, v)
	b.eventRows(s, seenAt, v)
	v.rep = reveal.Check(s, s.Reveals)
	v.Talk = b.talk(s, v.rep, v.Replay.Moves, v.FirstSide, v.SecondSide)
	v.Talk.anchor(v.anchor)
	// The replay shows each move's talk at its ply, so it is drawn after it.
	atPly := v.Talk.byPly()
	v.Steps = v.Replay.stepsHTML(v.grades, atPly)
	v.MovesHTML = v.Replay.movesHTML(v.grades, v.Times, atPly)
	v.Highlight = v.Replay.highlightCSS() // after the two: the timing classes they use
	v.Fallbacks = v.Talk.fallbacks()
	if s.Accepted {
		if p := h2hPath(s.First, s.Second); p != "" {
			v.H2H = matchRoot + p
		}
		v.Cross = b.crosstable(s.Kind, s.Match, s.First, s.Second)
	}
	if c == nil || !c.Reasoning {
		v.Talk.Href = "" // the card decides which files there are
	}
	return v
}

// players sets what the page says of the two players: the title, who is
// to move and who waits in a game in progress, who won one that is over.
func (v *matchPage) players(s *match.State) {
	switch {
	case s.Accepted:
		v.Title = fitTitle(v.Game+": %s vs %s", v.First.Label(), v.Second.Label())
	case s.Invitee != "":
		v.Title = fitTitle(v.Game+": %s vs anyone (invited: %s)", v.First.Label(), v.Invitee.Label())
	default:
		v.Title = fitTitle(v.Game+": %s vs anyone", v.First.Label())
	}
	if s.Accepted && !s.Over {
		v.ClockRunsOut = s.Deadline()
		v.ToMove, v.Waiting = v.First, v.Second
		v.ToMoveSide, v.WaitSide = v.FirstSide, v.SecondSide
		if s.ToMove() == match.Second {
			v.ToMove, v.Waiting = v.Second, v.First
			v.ToMoveSide, v.WaitSide = v.SecondSide, v.FirstSide
		}
	}
	if s.Over {
		v.ReasonText = reasonText(s.Reason)
		switch s.Result {
		case match.First:
			v.Winner, v.WinnerSide, v.ResultCode = v.First, v.FirstSide, "1-0"
		case match.Second:
			v.Winner, v.WinnerSide, v.ResultCode = v.Second, v.SecondSide, "0-1"
		default:
			v.ResultCode = "½-½"
		}
	}
}

// movesAndGrades sets the board, the moves and, when the analysis g fits them,
// their grades.
func (b *builder) movesAndGrades(s *match.State, c *card, g *analysis.Game, v *matchPage) {
	v.Replay = replayGame(s.Kind, s.Moves, b.defs)
	// A state loaded by Update may have moved on from the card the
	// analysis was checked against: grades go beside the moves only when
	// there is one per replayed move.
	if g != nil && (v.Replay.Err != "" || len(g.Moves) != len(v.Replay.Moves)) {
		g = nil
	}
	var grades []analysis.Move
	if g != nil {
		grades = g.Moves
		v.Legend = marksLegend(grades, v.Replay.Kind)
	}
	v.Grades = b.gradesFor(c, g, &v.Replay)
	v.grades = grades
}

// ref names the event id, which did what, signed by by.
func (v *matchPage) ref(what, id string, by player) evRef {
	return evRef{What: what, ID: id, Anchor: v.anchor(id), By: by}
}

// finality says how the result became final (section 2, "What final
// means"), or which signatures exist while it is not.
func (b *builder) finality(s *match.State, v *matchPage) {
	author := func(id string) player {
		for _, ev := range s.Events {
			if ev.ID == id {
				return b.author(s, ev.PubKey)
			}
		}
		return player{}
	}
	sig := func(role string, p player) {
		if sg, ok := s.Sigs[role]; ok {
			what := signedText(role, sg.Result)
			if s.Final {
				what = "signature of the " + role + " player"
			}
			dst := &v.Sigs
			if s.Final {
				dst = &v.Final
			}
			*dst = append(*dst, v.ref(what, sg.Event, p))
		}
	}
	switch {
	case !s.Final:
		sig(match.First, v.First)
		sig(match.Second, v.Second)
	case s.FinalBy == match.FinalBySignatures:
		sig(match.First, v.First)
		sig(match.Second, v.Second)
	case s.FinalBy == match.FinalByTimeout:
		v.Final = append(v.Final, v.ref("timeout claim", s.FinalEvent, author(s.FinalEvent)))
	case s.FinalBy == match.FinalByRuling:
		for _, r := range s.Requests {
			v.Final = append(v.Final, v.ref("arbitration request", r.Event, b.player(r.Author)))
		}
		by := author(s.FinalEvent)
		v.Final = append(v.Final, v.ref("arbiter's ruling", s.FinalEvent, by))
		if by.Pubkey != b.in.Daemon {
			v.RulingBy = by
		}
	}
}

// eventRows lists every event in fold order with what the fold did with it.
func (b *builder) eventRows(s *match.State, seenAt map[string]int64, v *matchPage) {
	ignored := make(map[string]match.Ignored, len(s.Ignored))
	for _, ig := range s.Ignored {
		ignored[ig.ID] = ig
	}
	use, plies := eventUses(s)
	who := map[string]template.HTML{}
	// The players' events name their side, which the page's top ties to
	// the account: the account's link, name and npub on each of a long
	// game's rows were a third of the table's bytes (issue 37). Anyone
	// else's events, and both of a game against oneself, show the account.
	if s.First != s.Second {
		who[s.First] = template.HTML(template.HTMLEscapeString(v.FirstSide))
		if s.Second != "" {
			who[s.Second] = template.HTML(template.HTMLEscapeString(v.SecondSide))
		}
	}
	for i, ev := range s.FileEvents() {
		w, ok := who[ev.PubKey]
		if !ok {
			w = b.author(s, ev.PubKey).Who(matchRoot)
			who[ev.PubKey] = w
		}
		row := newEventRow(i, ev, w, seenAt)
		row.Anchor = v.anchor(ev.ID)
		if ev.Kind == nostr.KindReveal {
			// Its content is reasoning text, which a page shows only as
			// checked and only after the game (section "talk").
			row.Excerpt = ""
			use[ev.ID] = "reveal of committed reasoning (not read by the rules; see Table talk and reasoning)"
		}
		if ig, ok := ignored[ev.ID]; ok {
			r := humanReason(s, ig, ev, row.SeenAt, row.Seen)
			row.Ignored, row.Token = r.Text, r.Token
		}
		if row.Ignored == "" {
			row.Use = use[ev.ID]
			switch n := plies[ev.ID]; {
			case n > 0 && n < len(v.Replay.Steps):
				row.Ply, row.Move = n, v.Replay.Steps[n].Label
			case n > 0: // a move the replay could not play (replay.Err)
				row.Use = join("counted move, ply "+strconv.Itoa(n), row.Use)
			case row.Use == "":
				row.Use = "used (superseded)"
			}
		}
		v.Events = append(v.Events, row)
		if row.Ignored != "" {
			v.Ignored = append(v.Ignored, row)
		}
	}
	v.EventsHTML, v.IgnoredHTML = eventsTable(v.Events), ignoredTable(v.Ignored)
}

// newEventRow is the row of the i-th event ev, signed by who, before what
// the fold did with it.
func newEventRow(i int, ev *nostr.Event, who template.HTML, seenAt map[string]int64) eventRow {
	kind, ok := kindNames[ev.Kind]
	if !ok {
		kind = "kind " + strconv.Itoa(ev.Kind)
	}
	row := eventRow{
		N: i + 1, ID: ev.ID, Short: shortID(ev.ID), Kind: kind, Who: who,
		Created: template.HTML(evDate(int64(ev.CreatedAt))), Excerpt: shownContent(ev.Content, maxExcerpt),
	}
	row.SeenAt, row.Seen = seenAt[ev.ID]
	if row.Seen {
		row.SeenDate = template.HTML(seenAfter(row.SeenAt - int64(ev.CreatedAt)))
	}
	return row
}

// eventAnchors gives each event of a page the name of its row in the
// events table, which the signatures, the talk table and the ignored
// reveals link to ("#ev-" and this): the id's first characters as the
// table prints them (shortID), more where two of the page's ids share
// them, so that every name is unique on the page. The whole id was 64 of
// each row's 320 bytes and again in every link to it (issue 37).
func eventAnchors(evs []*nostr.Event) map[string]string {
	ids := make([]string, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID
	}
	slices.Sort(ids)
	out := make(map[string]string, len(ids))
	for i, id := range ids {
		// The longest prefix id shares with another id is the one it
		// shares with a neighbour in sorted order.
		n := shortLen
		if i > 0 {
			n = max(n, commonPrefix(id, ids[i-1])+1)
		}
		if i+1 < len(ids) {
			n = max(n, commonPrefix(id, ids[i+1])+1)
		}
		out[id] = id[:min(n, len(id))]
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// anchor is the name of the event's row (eventAnchors); an event the table
// does not list keeps its whole id, so that a link to it cannot land on
// another event's row.
func (v *matchPage) anchor(id string) string {
	if a, ok := v.anchors[id]; ok {
		return a
	}
	return id
}

// eventUses says, by event id, what the fold used each event for, and
// which ply each counted move played (the move itself is in plies, not
// in use).
func eventUses(s *match.State) (use map[string]string, plies map[string]int) {
	use = map[string]string{s.Match: "challenge"}
	if s.Accepted {
		use[s.AcceptEvent] = "accept"
	}
	plies = make(map[string]int, len(s.MoveEvents))
	for i, id := range s.MoveEvents {
		plies[id] = i + 1
	}
	for _, role := range []string{match.First, match.Second} {
		if sg, ok := s.Sigs[role]; ok {
			use[sg.Event] = "latest signature of the " + role + " player"
		}
	}
	for _, r := range s.Requests {
		use[r.Event] = "valid arbitration request"
	}
	if s.Over {
		use[s.EndEvent] = join(use[s.EndEvent], "ended the game")
	}
	if s.Final {
		use[s.FinalEvent] = join(use[s.FinalEvent], "made the result final")
	}
	return use, plies
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// The events tables are written here, not by the template: a match shows a
// hundred rows or more, and html/template calls its escaper through
// reflect for every value it prints, which was a fifth of a full build
// (10,000 pages). esc is that escaper's text and quoted-attribute form, byte
// for byte (TestEscIsTemplateEscaping), and the values that are not
// escaped here are already HTML (Who, dates, reasons) or numbers.
var escaper = strings.NewReplacer(
	"\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;",
)

func esc(s string) string { return escaper.Replace(s) }

// eventsTable is the rows of "All events". Their cells carry no class:
// the table's style sheet sets each column (.ev in style.css), which on a
// long game's hundred rows is kilobytes (issue 37). A counted move links
// to its position in the replay.
func eventsTable(rows []eventRow) template.HTML {
	var b strings.Builder
	b.Grow(len(rows) * 200)
	for _, r := range rows {
		b.WriteString(`<tr id="ev-` + esc(r.Anchor) + `"><td>` + strconv.Itoa(r.N) +
			`</td><td>` + esc(r.Short) + `</td><td>` + esc(r.Kind) + `<br>` +
			string(r.Who) + `</td><td>` + string(r.Created) + `</td><td>`)
		if r.Seen {
			b.WriteString(string(r.SeenDate))
		}
		b.WriteString(`</td><td>`)
		switch {
		case r.Ignored != "":
			// The reason in words is the row of "Ignored events", just
			// above: linked, not written twice (issue 37).
			b.WriteString(`ignored: <a href="#ig-` + esc(r.Anchor) + `">why</a> <code class="mute">` + esc(r.Token) + `</code>`)
		case r.Ply > 0:
			b.WriteString(`counted move <a href="#ply-` + strconv.Itoa(r.Ply) + `">` + esc(r.Move) + `</a>`)
			if r.Use != "" {
				b.WriteString("; " + esc(r.Use))
			}
		default:
			b.WriteString(esc(r.Use))
		}
		if r.Ply == 0 {
			// A counted move's content is the move the fold read from it,
			// shown just before; the string as signed is in match.json.
			writeExcerpt(&b, r.Excerpt)
		}
		b.WriteString("</td></tr>\n")
	}
	return template.HTML(b.String())
}

// ignoredTable is the rows of "Ignored events".
func ignoredTable(rows []eventRow) template.HTML {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(`<tr id="ig-` + esc(r.Anchor) + `"><td><a href="#ev-` + esc(r.Anchor) + `"><code>` + esc(r.Short) + `</code></a></td><td>` +
			esc(r.Kind) + `<br>` + string(r.Who) + `</td><td>` + string(r.Ignored) +
			` <code class="mute">` + esc(r.Token) + `</code>`)
		writeExcerpt(&b, r.Excerpt)
		b.WriteString("</td></tr>\n")
	}
	return template.HTML(b.String())
}

func writeExcerpt(b *strings.Builder, s string) {
	if s != "" {
		b.WriteString(`<br><code><bdi>` + esc(s) + `</bdi></code>`)
	}
}
