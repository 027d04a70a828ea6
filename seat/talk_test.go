package seat

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/reveal"
)

// journalSeats are fastSeats each with a journal directory of its own.
func journalSeats(t *testing.T, relays []string) (*Seat, *Seat) {
	a, b := fastSeats(relays, 5*time.Second)
	a.JournalDir, b.JournalDir = filepath.Join(t.TempDir(), "a.reasoning"), filepath.Join(t.TempDir(), "b.reasoning")
	return a, b
}

// restart is a new process for the same key: a new seat with the same key,
// relays, clock and journal, and nothing else carried over.
func restart(s *Seat) *Seat {
	return &Seat{Relays: s.Relays, Key: s.Key, Timeout: s.Timeout, Now: s.Now, JournalDir: s.JournalDir}
}

// PROTOCOL.md section 8.2 end to end through the seat: every move commits
// reasoning, the text is nowhere on the relays while the game is live, a
// reveal is refused while live, the result that makes the game final
// reveals its signer's reasoning, and a restarted seat of the other player
// (whose process died without revealing) finds its journal and reveals the
// rest. reveal.Check then verifies all of it, none early.
func TestReasoningCommittedJournalledRevealed(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := journalSeats(t, []string{r.URL()})
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	id := ch.Match
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	moves := []string{"f3", "e5", "g4", "Qh4#"}
	texts := map[string]string{}
	for i, mv := range moves {
		s := a
		if i%2 == 1 {
			s = b
		}
		text := "secret plan " + mv + " because <reasons>"
		two := 2
		rep, err := s.MoveWith(ctx, id, mv, Talk{Comment: "playing " + mv, Reasoning: text, Attempts: &two})
		if err != nil {
			t.Fatal(err)
		}
		if !nostr.IsLowerHex(rep.Reasoning, 64) {
			t.Fatalf("reply reasoning %q", rep.Reasoning)
		}
		texts[rep.Event] = text
		if i == 1 {
			if _, err := b.Reveal(ctx, id, false); err == nil {
				t.Fatal("a reveal while the game is live was not refused")
			} else {
				refusal(t, err, RuleRevealLive)
			}
		}
	}
	snap, err := a.Read(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	// a sees b's latest comment (section 8.1), and no reasoning.
	if oc := snap.Status(a.Me(), snap.At).OpponentComment; oc == nil || oc.Text != "playing Qh4#" || oc.Ply != 4 {
		t.Fatalf("opponent comment %+v", oc)
	}
	for _, ev := range snap.State.Events {
		for _, text := range texts {
			if strings.Contains(ev.Content, "secret") || strings.Contains(strings.Join(flat(ev.Tags), " "), text) {
				t.Fatalf("event %s carries a reasoning text", ev.ID)
			}
		}
		if c, _ := nostr.Comment(ev); ev.Kind == nostr.KindMove && !strings.HasPrefix(c, "playing ") {
			t.Fatalf("move %s has comment %q", ev.ID, c)
		}
	}
	// The journal is secret: 0600, and it holds what a reveal needs.
	for _, s := range []*Seat{a, b} {
		fi, err := os.Stat(filepath.Join(s.JournalDir, id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("journal mode %v", fi.Mode().Perm())
		}
	}

	// b signs first (not final yet: nothing revealed), then its process
	// dies. a's signature makes the result final and reveals a's reasoning.
	if rep, err := b.SignResult(ctx, id); err != nil || len(rep.Revealed) != 0 {
		t.Fatalf("b's result: %v %+v", err, rep)
	}
	rep, err := a.SignResult(ctx, id)
	if err != nil || len(rep.Revealed) != 1 {
		t.Fatalf("a's final result revealed %v: %v", rep, err)
	}
	_, report, err := a.Reveals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := statusCount(report); got[reveal.Verified] != 2 || got[reveal.Unrevealed] != 2 {
		t.Fatalf("after a's result: %v", got)
	}

	// The restarted b waits, wakes final, and reveals what its journal
	// holds.
	b2 := restart(b)
	woke, err := b2.Wait(ctx, id, WaitOptions{Timeout: testkit.Scale(10 * time.Second)})
	if err != nil || woke.Reason != WakeFinal || len(woke.Revealed) != 1 {
		t.Fatalf("restarted b's wait: %v %+v", err, woke)
	}
	_, report, err = a.Reveals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := statusCount(report); got[reveal.Verified] != 4 || len(report.Ignored) != 0 {
		t.Fatalf("after b's reveal: %v, ignored %v", got, report.Ignored)
	}
	for _, e := range report.Entries {
		if e.Text != texts[e.Event] {
			t.Fatalf("entry %s: text %q, want %q", e.Event, e.Text, texts[e.Event])
		}
	}
	// Revealed entries are marked: nothing is published twice.
	n := r.Count()
	again, err := restart(b2).RevealDue(ctx, id)
	if err != nil || len(again.Events) != 0 || r.Count() != n {
		t.Fatalf("second reveal: %v %+v", err, again)
	}
	entries, err := b2.Journal(id)
	if err != nil || len(entries) != 2 || entries[0].Revealed == "" || entries[1].Revealed == "" {
		t.Fatalf("journal %+v %v", entries, err)
	}
}

// The journal is written before the move is published: a seat that cannot
// write it publishes nothing, so no commitment is ever left without its
// text.
func TestReasoningJournalBeforePublish(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := journalSeats(t, []string{r.URL()})
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	a.JournalDir = filepath.Join(blocker, "journal") // under a file: cannot be made
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}
	n := r.Count()
	if _, err := a.MoveWith(ctx, ch.Match, "e4", Talk{Reasoning: "centre"}); err == nil {
		t.Fatal("a move whose reasoning could not be journalled was published")
	}
	if r.Count() != n {
		t.Fatal("the relay got an event")
	}
	// Without reasoning nothing needs the journal.
	if _, err := a.MoveWith(ctx, ch.Match, "e4", Talk{Comment: "centre"}); err != nil {
		t.Fatal(err)
	}
}

// An early reveal is allowed with early set, and reveal.Check marks it.
func TestRevealEarly(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := journalSeats(t, []string{r.URL()})
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Accept(ctx, ch.Match); err != nil {
		t.Fatal(err)
	}
	if _, err := a.MoveWith(ctx, ch.Match, "e4", Talk{Reasoning: "centre"}); err != nil {
		t.Fatal(err)
	}
	rep, err := a.Reveal(ctx, ch.Match, true)
	if err != nil || !rep.Early || len(rep.Revealed) != 1 {
		t.Fatalf("early reveal: %v %+v", err, rep)
	}
	_, report, err := b.Reveals(ctx, ch.Match)
	if err != nil {
		t.Fatal(err)
	}
	if got := statusCount(report); got[reveal.Early] != 1 {
		t.Fatalf("statuses %v", got)
	}
	// A result carries reasoning only.
	if _, err := a.SignResultWith(ctx, ch.Match, Talk{Comment: "gg"}); err == nil {
		t.Fatal("a result with a comment was accepted")
	}
}

func statusCount(rep reveal.Report) map[reveal.Status]int {
	out := map[reveal.Status]int{}
	for _, e := range rep.Entries {
		out[e.Status]++
	}
	return out
}

func flat(tags nostr.Tags) []string {
	var out []string
	for _, t := range tags {
		out = append(out, slices.Clone(t)...)
	}
	return out
}

// Section 8.2: vesper's seat reveals on its own once the result is final,
// or once the game has been over for an hour; a live game never.
func TestRevealDueRule(t *testing.T) {
	end := int64(1_700_000_000)
	cases := []struct {
		name string
		st   match.State
		now  int64
		want bool
	}{
		{"live", match.State{}, end + 7200, false},
		{"over, not final, 59 min", match.State{Over: true, EndedAt: end}, end + 3599, false},
		{"over, not final, an hour", match.State{Over: true, EndedAt: end}, end + 3600, true},
		{"final at once", match.State{Over: true, Final: true, EndedAt: end}, end, true},
	}
	for _, c := range cases {
		if got := revealDue(&c.st, time.Unix(c.now, 0)); got != c.want {
			t.Errorf("%s: due %v, want %v", c.name, got, c.want)
		}
	}
}

// A reveal by hand once the game is over (not yet final) is not early and
// needs no --early: early means during the game (section 8.2).
func TestRevealOverNotFinal(t *testing.T) {
	ctx := context.Background()
	r := startRelay(t)
	a, b := journalSeats(t, []string{r.URL()})
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	id := ch.Match
	if _, err := b.Accept(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := a.MoveWith(ctx, id, "e4", Talk{Reasoning: "centre"}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Resign(ctx, id); err != nil {
		t.Fatal(err)
	}
	// Not due on its own: not final, and the end was a moment ago.
	if rep, err := a.RevealDue(ctx, id); err != nil || len(rep.Events) != 0 {
		t.Fatalf("RevealDue before final: %v %+v", err, rep)
	}
	rep, err := a.Reveal(ctx, id, false)
	if err != nil || rep.Early || len(rep.Revealed) != 1 {
		t.Fatalf("reveal after the end: %v %+v", err, rep)
	}
	_, report, err := b.Reveals(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got := statusCount(report); got[reveal.Verified] != 1 {
		t.Fatalf("statuses %v", got)
	}
}
