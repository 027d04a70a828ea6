// A player's section 8 figures: comments, reasoning and effort counted per game
// and summed for the player page.

package site

import (
	"html/template"
	"strconv"

	"vesper/match"
	"vesper/nostr"
	"vesper/reveal"
)

// talkSummary is one player's figures, in one game or (player page)
// over its games.
type talkSummary struct {
	Side string
	Who  template.HTML
	talkTally
	Hidden   int    // committed, not verified, early or mismatched
	Attempts string // the sum, "" when no move reported attempts
	Usage    []usageSum
}

// talkTally counts one player's section 8 content in one game (a card
// keeps one per player, for the player page). Statuses and plan checks
// are counted only once the game is over, as the page shows them.
type talkTally struct {
	Moves      int                `json:"m,omitempty"` // counted board moves
	Commented  int                `json:"c,omitempty"`
	Committed  int                `json:"r,omitempty"`
	Verified   int                `json:"v,omitempty"`
	Early      int                `json:"e,omitempty"`
	Mismatch   int                `json:"x,omitempty"`
	Named      int                `json:"n,omitempty"`  // verified counted moves whose plan names the move
	Checked    int                `json:"k,omitempty"`  // verified counted moves
	VerMoves   int                `json:"vm,omitempty"` // counted moves whose reasoning is verified (not early)
	AttemptsN  int                `json:"a,omitempty"`  // the sum of reported attempts
	AttemptsOf int                `json:"ao,omitempty"`
	UsageSum   map[string]float64 `json:"u,omitempty"`
	UsageOf    map[string]int     `json:"uo,omitempty"`
}

// add sums another tally into t.
func (t *talkTally) add(o talkTally) {
	t.Moves, t.Commented, t.Committed = t.Moves+o.Moves, t.Commented+o.Commented, t.Committed+o.Committed
	t.Verified, t.Early, t.Mismatch = t.Verified+o.Verified, t.Early+o.Early, t.Mismatch+o.Mismatch
	t.Named, t.Checked, t.VerMoves = t.Named+o.Named, t.Checked+o.Checked, t.VerMoves+o.VerMoves
	t.AttemptsN, t.AttemptsOf = t.AttemptsN+o.AttemptsN, t.AttemptsOf+o.AttemptsOf
	for k, v := range o.UsageSum {
		if t.UsageSum == nil {
			t.UsageSum, t.UsageOf = map[string]float64{}, map[string]int{}
		}
		t.UsageSum[k] += v
		t.UsageOf[k] += o.UsageOf[k]
	}
}

// summary is the tally in words.
func (t talkTally) summary(side string, who template.HTML) talkSummary {
	v := talkSummary{Side: side, Who: who, talkTally: t, Hidden: t.Committed - t.Verified - t.Early - t.Mismatch}
	if t.AttemptsOf > 0 {
		v.Attempts = strconv.Itoa(t.AttemptsN)
	}
	for _, k := range nostr.UsageKeys() {
		if t.UsageOf[k] > 0 {
			v.Usage = append(v.Usage, usageSum{Key: usageLabel(k), Total: number(t.UsageSum[k]), Of: t.UsageOf[k]})
		}
	}
	return v
}

// Any says whether the tally holds anything to show.
func (t talkTally) Any() bool {
	return t.Commented > 0 || t.Committed > 0 || t.AttemptsOf > 0 || len(t.UsageOf) > 0
}

// tally counts the players' section 8 content in a game: first, second.
func tally(s *match.State, rep reveal.Report, sans []string) [2]talkTally {
	var out [2]talkTally
	ply := map[string]int{}
	for i, id := range s.MoveEvents {
		ply[id] = i + 1
	}
	for _, ev := range s.Events {
		if ev.Kind != nostr.KindMove && ev.Kind != nostr.KindResult {
			continue
		}
		var t *talkTally
		switch ev.PubKey {
		case s.First:
			t = &out[0]
		case s.Second:
			t = &out[1]
		default:
			continue
		}
		n := ply[ev.ID] // > 0: a counted board move
		if n > 0 {
			t.Moves++
		}
		if c, _ := nostr.Comment(ev); c != "" {
			t.Commented++
		}
		if e, ok := rep.Entry(ev.ID); ok {
			t.Committed++
			if s.Over {
				t.reasoning(s, e, n, sans)
			}
		}
		if n > 0 { // effort is counted per counted move
			t.effort(ev)
		}
	}
	return out
}

// reasoning counts a committing event's check once the game is over; n is
// its ply when it is a counted move.
func (t *talkTally) reasoning(s *match.State, e reveal.Entry, n int, sans []string) {
	switch e.Status {
	case reveal.Verified:
		t.Verified++
		if n > 0 {
			t.VerMoves++
		}
	case reveal.Early:
		t.Early++
	case reveal.Mismatch:
		t.Mismatch++
	}
	if (e.Status == reveal.Verified || e.Status == reveal.Early) && n > 0 && n <= len(sans) {
		t.Checked++
		if names(s, n, sans, e.Text) {
			t.Named++
		}
	}
}

// effort adds a counted move's self-reported attempts and usage, where
// they can be read.
func (t *talkTally) effort(ev *nostr.Event) {
	if k, present, err := nostr.Attempts(ev); present && err == nil {
		t.AttemptsN += k
		t.AttemptsOf++
	}
	if u, present, err := nostr.ReadUsage(ev); present && err == nil {
		for _, f := range u.Fields() {
			if t.UsageSum == nil {
				t.UsageSum, t.UsageOf = map[string]float64{}, map[string]int{}
			}
			t.UsageSum[f.Key] += f.Value
			t.UsageOf[f.Key]++
		}
	}
}

type usageSum struct {
	Key, Total string
	Of         int
}

// hasReasoning says whether a match has committed reasoning or reveals.
func hasReasoning(s *match.State) bool {
	if len(s.Reveals) > 0 {
		return true
	}
	for _, ev := range s.Events {
		if ev.Kind == nostr.KindMove || ev.Kind == nostr.KindResult {
			if _, ok := nostr.Reasoning(ev); ok {
				return true
			}
		}
	}
	return false
}

// cardTalk is the players' tallies for a card, nil for a game without
// section 8 content (most games: they skip the replay this costs).
func cardTalk(s *match.State) []talkTally {
	if !hasTalk(s) {
		return nil
	}
	t := tally(s, reveal.Check(s, s.Reveals), readMoves(s))
	return t[:]
}

// hasTalk says whether a move or result of the match carries a section 8
// tag, or the match has reveals.
func hasTalk(s *match.State) bool {
	if len(s.Reveals) > 0 {
		return true
	}
	for _, ev := range s.Events {
		if ev.Kind != nostr.KindMove && ev.Kind != nostr.KindResult {
			continue
		}
		for _, tag := range ev.Tags {
			if len(tag) > 0 {
				switch tag[0] {
				case nostr.CommentTag, nostr.ReasoningTag, nostr.AttemptsTag, nostr.UsageTag, nostr.FallbackTag:
					return true
				}
			}
		}
	}
	return false
}

// readMoves are the counted moves as the replay shows them (SAN, or the
// point), without drawing a board.
func readMoves(s *match.State) []string {
	if s.Kind != nostr.GameChess {
		return s.Moves
	}
	return sanMoves(s.Moves)
}
