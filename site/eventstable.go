// The match page's tables of all events and of ignored events: one row per
// event in fold order, with what the fold did with it.

package site

import (
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"vesper/match"
	"vesper/nostr"
)

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

// eventRow is one event of the match in fold order. A match shows a
// hundred of these or more, so what the rows print is computed here, not
// called from the template: a call through the template (reflect) cost
// more than the rest of the row at 10,000 pages.
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
