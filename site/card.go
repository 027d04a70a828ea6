package site

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vesper/analysis"
	"vesper/match"
	"vesper/nostr"
)

// card is what every page but a match's own needs of that match: the
// index, the player pages, the archive, the feeds and the ratings read
// cards, never states, so that a rebuild (Update) can take the matches that
// did not change from the previous build's card file instead of folding
// them again. A match's own files (page, match.json, PGN) need its full
// state, and the match key (key.go) says when they must be rendered again.
//
// The JSON names are short: a site of 100,000 matches keeps 100,000 cards.
type card struct {
	ID        string        `json:"id"`
	Kind      string        `json:"k"`
	First     string        `json:"f"`
	Second    string        `json:"s,omitempty"`
	Invitee   string        `json:"i,omitempty"`
	Accepted  bool          `json:"a,omitempty"`
	CreatedAt int64         `json:"c"`
	AcceptAt  int64         `json:"at,omitempty"`
	Plies     int           `json:"p,omitempty"`
	LastMove  int64         `json:"lm,omitempty"` // created_at of the last counted move
	Over      bool          `json:"o,omitempty"`
	Result    string        `json:"r,omitempty"`
	Reason    match.Reason  `json:"re,omitempty"`
	EndedAt   int64         `json:"e,omitempty"`
	Final     bool          `json:"fi,omitempty"`
	FinalBy   match.FinalBy `json:"fb,omitempty"`
	// RatedAt dates the game for the ratings: the created_at of the event
	// that made the result final (ratings' canonical order).
	RatedAt int64 `json:"ra,omitempty"`
	// Events is EventsDigest of the match's events: the match key's stand-in
	// for the events themselves, and what Stale compares.
	Events string `json:"ev"`
	// Authors are the signers of events other than First, Second and
	// Invitee (a stray result, an arbiter's ruling), sorted: their names
	// appear on the match page.
	Authors []string `json:"au,omitempty"`
	// Analysis says what the match's analysis shows (grades.go): "" none
	// yet, "failed", "misfit" (done but not fitting the game, shown as
	// failed), else the digest of its analysis.json. The match key includes
	// it, so a match whose analysis arrives is rendered again; Grades are
	// the two players' figures from it (first, second), which the player
	// pages show.
	Analysis string  `json:"an,omitempty"`
	Grades   []grade `json:"gr,omitempty"`
	// Reasoning says that the match has committed reasoning or reveals
	// (section 8.2), so it has an m/<id>.reasoning.json.
	Reasoning bool `json:"rs,omitempty"`
	// Talk is each player's section 8 tally in this game (first, second),
	// nil for a game without any: the player pages sum them.
	Talk []talkTally `json:"tk,omitempty"`
	// Pace is each player's counted moves, ignored moves, fallback moves
	// and self-stamped move times in this game (first, second), nil for a
	// game never accepted: the ladder of models sums them.
	Pace []pace `json:"pc,omitempty"`
	// Idle is Input.IdleSince of the match's state: a function of its
	// events, so a card carried over keeps it.
	Idle int64 `json:"il,omitempty"`
	// gradeLater marks a card made without its done analysis, which the
	// build loads when it makes the match's files and only then records in
	// Analysis and Grades (matchFiles). Nothing reads those fields before.
	gradeLater bool
}

// newCard takes from a folded state, the seen_at times and the match's
// analysis (nil: none) what the pages need of them.
func newCard(s *match.State, seenAt map[string]int64, g *analysis.Game) *card {
	c := &card{
		ID: s.Match, Kind: s.Kind, First: s.First, Second: s.Second, Invitee: s.Invitee,
		Accepted: s.Accepted, CreatedAt: s.CreatedAt, AcceptAt: s.AcceptAt, Plies: s.Plies(),
		Over: s.Over, Result: s.Result, Reason: s.Reason, EndedAt: s.EndedAt,
		Final: s.Final, FinalBy: s.FinalBy, RatedAt: s.EndedAt,
	}
	if n := len(s.MoveTimes); n > 0 {
		c.LastMove = s.MoveTimes[n-1]
	}
	authors := map[string]bool{}
	stamps := make([]Stamp, 0, len(s.Events))
	for _, ev := range s.Events {
		t, ok := seenAt[ev.ID]
		if !ok {
			t = -1
		}
		stamps = append(stamps, Stamp{ID: ev.ID, SeenAt: t})
		if ev.PubKey != s.First && ev.PubKey != s.Second && ev.PubKey != s.Invitee {
			authors[ev.PubKey] = true
		}
		if ev.ID == s.FinalEvent {
			c.RatedAt = int64(ev.CreatedAt)
		}
	}
	// Reveals are stored with the match (store.MatchStamps lists them), and
	// a new one changes the match's page: they are part of the digest.
	for _, ev := range s.Reveals {
		t, ok := seenAt[ev.ID]
		if !ok {
			t = -1
		}
		stamps = append(stamps, Stamp{ID: ev.ID, SeenAt: t})
		if ev.PubKey != s.First && ev.PubKey != s.Second && ev.PubKey != s.Invitee {
			authors[ev.PubKey] = true // a stray reveal's author is named on the page
		}
	}
	c.Events = EventsDigest(stamps)
	c.Reasoning = hasReasoning(s)
	c.Talk = cardTalk(s)
	c.Pace = cardPace(s)
	if len(authors) > 0 {
		c.Authors = sortedKeys(authors)
	}
	setGrades(c, g)
	return c
}

// Stamp is what the card file remembers of one event of a match: its id
// (which fixes its content) and when this verifier first saw it (-1: not
// known).
type Stamp struct {
	ID     string
	SeenAt int64
}

// EventsDigest hashes a match's stamps in id order, so that a caller can
// compute it from the store without folding (Stale). It sorts stamps.
func EventsDigest(stamps []Stamp) string {
	slices.SortFunc(stamps, func(x, y Stamp) int { return strings.Compare(x.ID, y.ID) })
	h := sha256.New()
	var buf [8]byte
	for _, st := range stamps {
		binary.BigEndian.PutUint64(buf[:], uint64(len(st.ID)))
		h.Write(buf[:])
		h.Write([]byte(st.ID))
		binary.BigEndian.PutUint64(buf[:], uint64(st.SeenAt))
		h.Write(buf[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Stale compares the matches' current events (EventsDigest by match id,
// every match there is) with the build outDir points at, and returns the
// matches Update must fold: new ones, changed ones and those the build has
// but digests lacks, sorted. ErrNoPrevious: there is no build to compare
// with, or not one of this binary. Analyses are not compared here: Update
// itself notices an analysis that appeared, failed or went (regraded).
func Stale(outDir string, digests map[string]string) ([]string, error) {
	prev, err := readCards(publishedBuild(outDir))
	if err != nil {
		return nil, ErrNoPrevious
	}
	var out []string
	for id, d := range digests {
		if c := prev[id]; c == nil || c.Events != d {
			out = append(out, id)
		}
	}
	for id := range prev {
		if _, ok := digests[id]; !ok {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out, nil
}

// idleSince is Input.IdleSince of s, 0 without one.
func (b *builder) idleSince(s *match.State) int64 {
	if b.in.IdleSince == nil {
		return 0
	}
	return b.in.IdleSince(s)
}

// dormant says whether the game is one the daemon leaves dormant at now:
// idle since more than Input.DormantAfter ago, and not the daemon's own
// (the comparison store.Dormancy makes of a stored summary).
func (b *builder) dormant(c *card) bool {
	return b.in.DormantAfter > 0 && c.Idle > 0 && c.Idle < b.in.Now-b.in.DormantAfter &&
		(b.in.Daemon == "" || c.role(b.in.Daemon) == "")
}

// clock is the card's match.Clock: status, clock start, deadline and
// "the clock ran out" are match's rules, asked of the card's fields.
func (c *card) clock() match.Clock {
	return match.Clock{CreatedAt: c.CreatedAt, Accepted: c.Accepted, AcceptAt: c.AcceptAt,
		Plies: c.Plies, LastMove: c.LastMove, Over: c.Over, EndedAt: c.EndedAt}
}

// role is match.State's, computed from the card's fields
// (TestCardAsState holds them equal).

func (c *card) role(pk string) string {
	switch {
	case pk == c.First:
		return match.First
	case c.Accepted && pk == c.Second:
		return match.Second
	}
	return ""
}

// lastActivity is when the game last moved: the last counted move, or the
// accept before the first.
func (c *card) lastActivity() int64 {
	if c.Plies > 0 {
		return c.LastMove
	}
	return c.AcceptAt
}

// cardsName is the card file in each build directory, beside the manifest.
const cardsName = ".cards"

// cardsVersion names what a card file's cards were computed by: another
// binary may fold differently, so its cards are not reused.
func cardsVersion() string { return renderVersion + " " + exeSum() }

var errNoCards = errors.New("site: the previous build has no usable card file")

// writeCards stores the build's cards, oldest first never mattering: one
// header line, then one JSON object per line.
func (o *output) writeCards(cards []*card) error {
	b := make([]byte, 0, 300*len(cards)+100)
	b = append(b, match.MarshalLine(struct {
		Version string `json:"version"`
		Count   int    `json:"count"`
	}{cardsVersion(), len(cards)})...)
	for _, c := range cards {
		raw, err := json.Marshal(c)
		if err != nil {
			return fmt.Errorf("site: card %s: %w", c.ID, err)
		}
		b = append(b, raw...)
		b = append(b, '\n')
	}
	return o.write(cardsName, b)
}

// readCards loads the previous build's cards by match id. Any doubt (no
// file, another version, a bad line, a count that does not match) is
// errNoCards: the caller then builds everything.
func readCards(dir string) (map[string]*card, error) {
	if dir == "" {
		return nil, errNoCards
	}
	f, err := os.Open(filepath.Join(dir, cardsName))
	if err != nil {
		return nil, errNoCards
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	if !sc.Scan() {
		return nil, errNoCards
	}
	var head struct {
		Version string `json:"version"`
		Count   int    `json:"count"`
	}
	if json.Unmarshal(sc.Bytes(), &head) != nil || head.Version != cardsVersion() {
		return nil, errNoCards
	}
	cards := make(map[string]*card, head.Count)
	for sc.Scan() {
		c := &card{}
		if json.Unmarshal(sc.Bytes(), c) != nil || !nostr.IsLowerHex(c.ID, 64) || cards[c.ID] != nil {
			return nil, errNoCards
		}
		cards[c.ID] = c
	}
	if sc.Err() != nil || len(cards) != head.Count {
		return nil, errNoCards
	}
	return cards, nil
}

// sortCards orders cards as the index lists them: newest challenge first.
func sortCards(cards []*card) {
	slices.SortFunc(cards, func(x, y *card) int {
		if x.CreatedAt != y.CreatedAt {
			if x.CreatedAt > y.CreatedAt {
				return -1
			}
			return 1
		}
		if x.ID < y.ID {
			return -1
		}
		if x.ID > y.ID {
			return 1
		}
		return 0
	})
}
