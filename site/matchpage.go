package site

import (
	"html/template"
	"strings"

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
