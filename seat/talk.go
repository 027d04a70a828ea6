package seat

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	gn "github.com/nbd-wtf/go-nostr"

	"vesper/match"
	"vesper/nostr"
	"vesper/reveal"
)

// Talk is what an agent adds to an event it signs (PROTOCOL.md section 8):
// every part optional.
type Talk struct {
	// Comment is public table talk, shown at once (moves only).
	Comment string
	// Reasoning is the text to commit to: the seat draws a salt, signs the
	// hash with the event, keeps salt and text in the journal and reveals
	// them after the game. "" commits nothing.
	Reasoning string
	// Attempts counts the answers the harness refused before this move.
	Attempts *int
	// Usage is the self-reported effort of this move.
	Usage *nostr.Usage
	// Fallback flags a move the harness chose itself (section 8.3,
	// revision 3.1): nostr.FallbackRandom or nostr.FallbackEngine.
	Fallback string
}

// commitment is a drawn salt and its text, to journal.
type commitment struct{ Salt, Text string }

// commit turns t into tags, drawing the reasoning's salt.
func (t Talk) commit() (nostr.Talk, *commitment) {
	out := nostr.Talk{Comment: t.Comment, Attempts: t.Attempts, Usage: t.Usage, Fallback: t.Fallback}
	if t.Reasoning == "" {
		return out, nil
	}
	c := &commitment{Salt: nostr.NewSalt(), Text: t.Reasoning}
	out.Reasoning = nostr.ReasoningHash(c.Salt, c.Text)
	return out, c
}

func (t Talk) check() error {
	switch t.Fallback {
	case "", nostr.FallbackRandom, nostr.FallbackEngine:
	default:
		return inputf("fallback must be %s or %s, not %q", nostr.FallbackRandom, nostr.FallbackEngine, t.Fallback)
	}
	if t.Attempts != nil && *t.Attempts < 0 {
		return inputf("attempts must be 0 or more, not %d", *t.Attempts)
	}
	if t.Usage != nil {
		// What the tag holds must read back (non-negative, finite).
		if _, err := nostr.ParseUsage(t.Usage.JSON()); err != nil {
			return inputf("usage: %v", err)
		}
	}
	return nil
}

// resultOnly: a result carries reasoning only (section 8.2); comments,
// attempts and usage belong to moves (8.1, 8.3).
func (t Talk) resultOnly() error {
	if t.Comment != "" || t.Attempts != nil || t.Usage != nil || t.Fallback != "" {
		return inputf("a result carries only reasoning (comment, attempts and usage go with moves)")
	}
	return nil
}

// journalDir is where the seat keeps its reasoning journal: JournalDir, or: the user's config directory (not the cache: an entry must live
// until it is revealed), one directory per key.
func (s *Seat) journalDir() string {
	if s.JournalDir != "" {
		return s.JournalDir
	}
	dir, err := os.UserConfigDir()
	if err != nil || s.Me() == "" {
		return ""
	}
	return filepath.Join(dir, "vesper", "reasoning", s.Me())
}

// RevealAfter is how long after the end of a game that is not final the
// seat reveals anyway (section 8.2).
const RevealAfter = time.Hour

// RevealReply is what a reveal did.
type RevealReply struct {
	OK     bool   `json:"ok"`
	Action string `json:"action"` // "reveal"
	Match  string `json:"match"`
	// Events are the reveal events (kind 4427) published.
	Events []string `json:"events"`
	// Revealed are the committing events they reveal.
	Revealed []string `json:"revealed"`
	// Waiting are journal entries whose committing event the relays do not
	// hold (never published, or not there yet): kept for a later reveal.
	Waiting []string `json:"waiting,omitempty"`
	// Early: published while the game was live; sites mark it so.
	Early    bool              `json:"early,omitempty"`
	Accepted []string          `json:"accepted"`
	Failed   map[string]string `json:"failed"`
	Note     string            `json:"note,omitempty"`
}

// Reveal publishes the key's pending reveals of a match (section 8.2). While
// the game is live it refuses (RuleRevealLive) unless early is set: the
// reveal would then be marked early, since the opponent could read it.
func (s *Seat) Reveal(ctx context.Context, ref string, early bool) (*RevealReply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if !st.Over && !early {
		return nil, snap.withContext(&Refusal{Rule: RuleRevealLive,
			Reason: "the game is live: a reveal now is marked as revealed during the game (the opponent could read it); reveal after the end, or pass --early"},
			s.Me(), snap.At, false)
	}
	return s.revealLocked(ctx, snap.hints, st)
}

// RevealDue publishes the key's pending reveals of a match when they are
// due: the result is final, or the game has been over for RevealAfter.
// Otherwise it publishes nothing and says so in Note.
func (s *Seat) RevealDue(ctx context.Context, ref string) (*RevealReply, error) {
	snap, st, unlock, err := s.readAsPlayer(ctx, ref)
	defer unlock()
	if err != nil {
		return nil, err
	}
	if !revealDue(st, s.now()) {
		return &RevealReply{OK: true, Action: "reveal", Match: st.Match, Events: []string{}, Revealed: []string{},
			Accepted: []string{}, Failed: map[string]string{}, Note: "not due: reveals wait for the final result, or " + match.Span(int64(RevealAfter/time.Second)) + " after the end"}, nil
	}
	return s.revealLocked(ctx, snap.hints, st)
}

func revealDue(st *match.State, now time.Time) bool {
	return st.Final || st.Over && now.Unix()-st.EndedAt >= int64(RevealAfter/time.Second)
}

// revealAfter publishes what is due after an action that may have made the
// result final, under that action's lock. It is best effort: what fails
// stays pending in the journal, for `vesper reveal`, wait or the runner.
func (s *Seat) revealAfter(ctx context.Context, st *match.State) []string {
	if st == nil || !revealDue(st, s.now()) || s.journalDir() == "" {
		return nil
	}
	rep, err := s.revealLocked(ctx, nil, st)
	if err != nil {
		return nil
	}
	return rep.Events
}

// RevealOnFinal publishes the key's pending reveals of match id once the
// caller has learned that its result is final, whatever call it learned it
// in (an MCP agent that signed first may never wait again): it costs no
// read when the key committed nothing pending there, and is best effort
// (what fails stays pending). It returns the reveal events published.
func (s *Seat) RevealOnFinal(ctx context.Context, id string) []string {
	return s.revealOnFinal(ctx, id, WakeFinal)
}

// revealOnFinal publishes the key's pending reveals when a wait wakes
// final. It reads the journal first, so that a key that committed nothing
// costs no second read of the match; failures leave the entries pending.
func (s *Seat) revealOnFinal(ctx context.Context, id, reason string) []string {
	if reason != WakeFinal {
		return nil
	}
	entries, err := s.journal().entries(id)
	if err != nil || !slices.ContainsFunc(entries, func(e Committed) bool { return e.Revealed == "" }) {
		return nil
	}
	rep, err := s.RevealDue(ctx, id)
	if err != nil {
		return nil
	}
	return rep.Events
}

// revealLocked reveals every journal entry of st's match that is not yet
// revealed and whose committing event is in the match, signed by this key.
// The caller holds the key's lock on the match. Each reveal event is
// marked in the journal once a relay has taken it.
func (s *Seat) revealLocked(ctx context.Context, hints []string, st *match.State) (*RevealReply, error) {
	j := s.journal()
	entries, err := j.entries(st.Match)
	if err != nil {
		return nil, err
	}
	mine := map[string]bool{}
	for _, ev := range st.Events {
		if ev.PubKey == s.Me() {
			mine[ev.ID] = true
		}
	}
	out := &RevealReply{OK: true, Action: "reveal", Match: st.Match, Events: []string{}, Revealed: []string{},
		Accepted: []string{}, Failed: map[string]string{}}
	var todo []nostr.RevealEntry
	for _, e := range entries {
		switch {
		case e.Revealed != "":
		case !mine[e.Event]:
			out.Waiting = append(out.Waiting, e.Event)
		default:
			todo = append(todo, nostr.RevealEntry{Event: e.Event, Salt: e.Salt, Text: e.Text})
		}
	}
	if len(todo) == 0 {
		out.Note = "nothing to reveal"
		return out, nil
	}
	t, err := s.revealStamp(ctx, st)
	if err != nil {
		return nil, err
	}
	out.Early = reveal.IsEarly(st, t)
	evs, err := nostr.NewReveal(st.Match, todo, t)
	if err != nil {
		return nil, err
	}
	for _, ev := range evs {
		if err := s.Key.Sign(ev); err != nil {
			return nil, fmt.Errorf("seat: cannot sign: %w", err)
		}
		if err := s.publishReveal(ctx, j, hints, st.Match, ev, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

// revealStamp is the reveal's created_at: never before the end (it would
// read as early); the end may be up to MaxAhead ahead of this clock, and
// is then waited for.
func (s *Seat) revealStamp(ctx context.Context, st *match.State) (int64, error) {
	t := s.now().Unix()
	if !st.Over || t >= st.EndedAt {
		return t, nil
	}
	if time.Unix(st.EndedAt, 0).Sub(s.now()) > s.maxAhead() {
		return 0, &Refusal{Rule: RuleStampAhead, Match: st.Match, Reason: fmt.Sprintf("the game ended at %d, ahead of this clock", st.EndedAt)}
	}
	if err := s.waitFor(ctx, st.EndedAt); err != nil {
		return 0, err
	}
	return st.EndedAt, nil
}

// publishReveal publishes one signed reveal event, adds what happened to
// out, and marks its entries revealed in the journal once a relay has it.
func (s *Seat) publishReveal(ctx context.Context, j journal, hints []string, id string, ev *nostr.Event, out *RevealReply) error {
	accepted, failed, err := s.publish(ctx, ev, hints...)
	for r, why := range failed {
		out.Failed[r] = why
	}
	if err != nil {
		return err
	}
	out.Accepted = withRelays(out.Accepted, accepted)
	list, _ := nostr.ParseReveal(ev.Content)
	var marks []journalLine
	for _, e := range list {
		marks = append(marks, journalLine{Event: e.Event, Revealed: ev.ID})
		out.Revealed = append(out.Revealed, e.Event)
	}
	if err := j.append(id, marks...); err != nil {
		return err
	}
	out.Events = append(out.Events, ev.ID)
	return nil
}

// Reveals reads a match with its reveals (kind 4427) and checks them
// (section 8.2): the status of every committed reasoning.
func (s *Seat) Reveals(ctx context.Context, ref string) (*Snapshot, reveal.Report, error) {
	snap, err := s.Read(ctx, ref)
	if err != nil {
		return nil, reveal.Report{}, err
	}
	id := snap.State.Match
	res, err := s.fetchFrom(ctx, withRelays(s.Relays, snap.hints),
		[]gn.Filter{{Kinds: []int{nostr.KindReveal}, Tags: gn.TagMap{nostr.MatchTag: {id}}}}, "read reveals of "+id)
	if err != nil {
		return nil, reveal.Report{}, err
	}
	evs := append([]*nostr.Event(nil), snap.State.Events...)
	for _, r := range res.events {
		evs = append(evs, r.Event)
	}
	return snap, reveal.Check(snap.State, evs), nil
}
