package play

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/seat"
)

// TestParseAnswer: the forms an answer is read in (issue 35: think first,
// then a JSON block, as the arenas ask; a move in prose; the last object
// wins), each reported, and the kinds of an answer that names no move.
func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		name, out, kind, move, form string
	}{
		{"move", `{"move":"e2e4","reasoning":"centre"}`, "", "e2e4", FormJSON},
		{"trimmed", "  {\"move\": \" h8 \"}\n", "", "h8", FormJSON},
		{"resign", `{"move":"resign"}`, "", "resign", FormJSON},
		{"accept only", `{"accept_offer":true}`, "", "", FormJSON},
		{"nothing", "", KindEmpty, "", ""},
		{"blank", " \n\t", KindEmpty, "", ""},
		{"no move", `{"comment":"hmm"}`, KindEmpty, "", ""},
		{"prose only", `I think I will play the king's pawn`, KindUnparsable, "", ""},
		{"two objects: the last wins", `{"move":"e2e4"} {"move":"d2d4"}`, "", "d2d4", FormInText},
		{"thought then object", "Let me think. {\"a\": {\"b\": 1}} is not it.\nSo: {\"move\": \"g1f3\", \"usage\": {\"output_tokens\": 3}}\nDone.", "", "g1f3", FormInText},
		{"fenced json", "The centre matters.\n```json\n{\"move\": \"e4\", \"comment\": \"hi\"}\n```\n", "", "e4", FormFenced},
		{"fenced move", "I'll go with\n```\nNf3\n```", "", "Nf3", FormFenced},
		{"bare", "e2e4\n", "", "e2e4", FormBare},
		{"labelled last line", "The knight is best here.\n**Move:** Nf3.", "", "Nf3", FormBare},
		{"gomoku point", "h8", "", "h8", FormBare},
		{"array", `["e2e4"]`, KindUnparsable, "", ""},
		{"bad offer", `{"move":"e2e4","offer":"win"}`, KindUnparsable, "", ""},
		{"bad offer in text", `ok {"move":"e2e4","offer":"win"}`, KindUnparsable, "", ""},
		{"many braces", strings.Repeat("{", 5000) + " e4", KindUnparsable, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, kind, why := ParseAnswer([]byte(tc.out))
			if kind != tc.kind || a.Move != tc.move || a.Form != tc.form {
				t.Fatalf("got kind %q (%s) move %q form %q, want kind %q move %q form %q", kind, why, a.Move, a.Form, tc.kind, tc.move, tc.form)
			}
			if kind != "" && why == "" {
				t.Fatal("a refused answer needs a reason")
			}
		})
	}
}

// TestWilson checks the interval against values computed by hand
// (z = 1.96): 6/10 gives 31.3%-83.2%; all wins of 6 gives 61.0%-100%.
func TestWilson(t *testing.T) {
	for _, tc := range []struct {
		s      Score
		lo, hi float64
	}{
		{Score{Wins: 6, Losses: 4}, 0.3127, 0.8318},
		{Score{Wins: 6}, 0.6097, 1},
		{Score{Wins: 2, Draws: 2, Losses: 2}, 0.1876, 0.8124},
		{Score{}, 0, 1},
	} {
		lo, hi := tc.s.Wilson()
		if math.Abs(lo-tc.lo) > 1e-3 || math.Abs(hi-tc.hi) > 1e-3 {
			t.Errorf("%+v: got [%.4f, %.4f], want [%.4f, %.4f]", tc.s, lo, hi, tc.lo, tc.hi)
		}
	}
	s := Score{}
	for _, o := range []string{OutcomeWin, OutcomeWin, OutcomeDraw, OutcomeLoss, OutcomeWin, OutcomeLoss} {
		s.Add(o)
	}
	if got, want := s.Line(), "+3 =1 -2, 3.5/6 (58.3%), 95% Wilson interval 24.1%-86.1%"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

// TestPolicy: each refusal of the matchmaking policy.
func TestPolicy(t *testing.T) {
	p := Policy{Games: []string{"chess"}, From: []string{"alice"}, Invitations: true, Open: true, OpenAfter: 60, MaxGames: 2}
	inv := func(game, from string) seat.StreamEvent {
		return seat.StreamEvent{Type: seat.EventInvitation, Game: game, From: from, Status: &seat.Status{CreatedAt: 1000}}
	}
	open := seat.StreamEvent{Type: seat.EventOpen, Game: "chess", From: "alice", Status: &seat.Status{CreatedAt: 1000}}
	for _, tc := range []struct {
		name   string
		p      Policy
		ev     seat.StreamEvent
		active int
		now    int64
		ok     bool
	}{
		{"invitation", p, inv("chess", "alice"), 0, 1000, true},
		{"other game", p, inv("gomoku", "alice"), 0, 1000, false},
		{"stranger", p, inv("chess", "bob"), 0, 1000, false},
		{"full", p, inv("chess", "alice"), 2, 1000, false},
		{"open too young", p, open, 0, 1059, false},
		{"open old enough", p, open, 0, 1060, true},
		// Issue 30, item 11: a wait of the largest int64 never comes due
		// (a sum would wrap it into the past).
		{"open, wait never over", Policy{MaxGames: 1, Open: true, OpenAfter: math.MaxInt64}, open, 0, 1 << 53, false},
		{"no invitations", Policy{MaxGames: 1, Open: true}, inv("chess", "alice"), 0, 1000, false},
		{"no open", Policy{MaxGames: 1, Invitations: true}, open, 0, 5000, false},
		{"not a challenge", p, seat.StreamEvent{Type: seat.EventMyTurn, Game: "chess", From: "alice"}, 0, 1000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, why := tc.p.Accepts(tc.ev, tc.active, tc.now)
			if ok != tc.ok {
				t.Fatalf("got %v (%s), want %v", ok, why, tc.ok)
			}
		})
	}
}

// TestJournalIntent: the move journaled for a ply and not settled by a
// decision is the one a restart sends again; a settled one is not.
func TestJournalIntent(t *testing.T) {
	dir := t.TempDir()
	j, err := OpenJournal(dir, "m1")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []Entry{
		{Type: EntryStart},
		{Type: EntryIntent, Ply: 2, Move: "e7e5"},
		{Type: EntryDecision, Ply: 2, Move: "e7e5"},
		{Type: EntryIntent, Ply: 4, Move: "e2e5"}, // refused, then
		{Type: EntryIntent, Ply: 4, Move: "b8c6"}, // the retry, signed when the crash came
	} {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	// A torn last line, as a crash mid-write leaves it.
	f, _ := os.OpenFile(filepath.Join(dir, "m1.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"type":"decis`)
	f.Close()
	es, err := j.Entries()
	if err != nil || len(es) != 5 {
		t.Fatalf("entries %d, %v", len(es), err)
	}
	if mv, ok := PendingIntent(es, 2); ok {
		t.Fatalf("ply 2 was settled, got %q", mv)
	}
	if mv, ok := PendingIntent(es, 4); !ok || mv != "b8c6" {
		t.Fatalf("ply 4: got %q %v, want b8c6", mv, ok)
	}
	j2, _ := OpenJournal(dir, "m2")
	_ = j2.Append(Entry{Type: EntryStart})
	_ = j2.Append(Entry{Type: EntryFinal})
	un, err := Unfinished(dir)
	if err != nil || strings.Join(un, ",") != "m1" {
		t.Fatalf("unfinished %v, %v; want m1", un, err)
	}
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "agent.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommandHangs: an agent that never answers is killed at its time
// limit (it and what it started), and the attempt is a time-out.
func TestCommandHangs(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	c := &Command{Argv: []string{script(t, "echo $$ > "+pidFile+"\nexec sleep 600\n")}, Timeout: testkit.Scale(300 * time.Millisecond)}
	_, kind, why := c.Ask(context.Background(), Request{Game: "chess"})
	if kind != KindTimeout {
		t.Fatalf("kind %q (%s), want %q", kind, why, KindTimeout)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the hung agent %d is still there: %v", pid, err)
	}
}

// TestCommandAnswers: the request reaches stdin as one JSON object, the
// answer comes back; a failing command is reported as such.
func TestCommandAnswers(t *testing.T) {
	c := &Command{Argv: []string{script(t, `read line; case "$line" in *'"attempt":2'*) echo '{"move":"d2d4"}';; *) echo '{"move":"e2e4"}';; esac`)}, Timeout: testkit.Scale(10 * time.Second)}
	if a, kind, why := c.Ask(context.Background(), Request{Attempt: 2}); kind != "" || a.Move != "d2d4" {
		t.Fatalf("got %+v %q %s", a, kind, why)
	}
	bad := &Command{Argv: []string{script(t, "echo oops >&2; exit 3")}, Timeout: testkit.Scale(10 * time.Second)}
	if _, kind, why := bad.Ask(context.Background(), Request{}); kind != KindFailed || !strings.Contains(why, "oops") {
		t.Fatalf("got %q %s", kind, why)
	}
}

// TestTakesOffer: engines take a win offered, a draw only within drawCP of
// even, never a loss.
func TestTakesOffer(t *testing.T) {
	cp := func(v int) *int { return &v }
	for _, tc := range []struct {
		offer string
		eval  *int
		draw  int
		want  bool
	}{
		{"first", nil, -1, true},
		{"second", cp(0), 100, false},
		{"draw", cp(50), 100, true},
		{"draw", cp(-150), 100, false},
		{"draw", nil, 100, false},
		{"draw", cp(0), -1, false},
		{"", cp(0), 100, false},
	} {
		if got := takesOffer(Request{Role: "first", Offer: tc.offer}, tc.eval, tc.draw); got != tc.want {
			t.Errorf("%+v: got %v", tc, got)
		}
	}
}
