package play_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
	"vesper/play"
	"vesper/relayd"
)

// lines collects a runner's progress lines (Config.Out is called from its
// workers).
type lines struct {
	mu  sync.Mutex
	all []play.Line
}

func (l *lines) add(x play.Line) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, x)
}

// first is the first line of match id that pick accepts, if any.
func (l *lines) first(id string, pick func(play.Line) bool) (play.Line, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, x := range l.all {
		if x.Match == id && pick(x) {
			return x, true
		}
	}
	return play.Line{}, false
}

// notFinalYet is the runner's error line for a game its stream folded
// final and a fresh read did not (play/decide.go's errNotFinalYet).
func notFinalYet(x play.Line) bool {
	return x.Type == "error" && strings.Contains(x.Error, "a fresh read of the match does not yet")
}

func isFinal(x play.Line) bool { return x.Type == "final" }

// Promise: the runner reports a game final only when a fresh read of the
// relays says so, not when its stream does. The opponent resigned and the
// runner signed; the opponent's signature, which makes the result final,
// reaches the runner's live subscription but the relay has not stored it.
// The runner must not report, count or record the game final until the
// relay holds that signature; then it does.
func TestPromiseFinalOnlyOnAFreshRead(t *testing.T) {
	rl, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rl.Close() })
	url := rl.URL()
	me, opp := testkit.Key("fresh-read runner"), testkit.Key("fresh-read opponent")
	now := time.Now().Unix()
	m := testkit.NewMatch(me, opp, "gomoku", opp.PublicKey(), now-10)
	m.Accept(now - 9)
	m.Move(me, 1, "h8", now-8)
	m.Move(opp, 2, nostr.ResignContent, now-7)
	publish(t, url, m.Events...)
	out := &lines{}
	start(t, url, me, play.Config{Out: out.add, Backoff: testkit.Scale(50 * time.Millisecond),
		NewMover: func(string) play.Mover { return fixed("a1") }})
	eventually(t, "the runner's signature", func() bool {
		_, signed := fold(t, url, m.ID).Sigs[match.First]
		return signed
	})
	st := fold(t, url, m.ID)
	if st.Final || st.Result != match.First {
		t.Fatalf("before the opponent signs: final %v, result %s", st.Final, st.Result)
	}
	sig := m.Result(opp, st.Computed(), time.Now().Unix())
	rl.Broadcast(sig)
	// The stream folds the game final; the runner reads the relay, which
	// does not hold the signature: it says so and keeps reading.
	eventually(t, "the runner's fresh read", func() bool {
		_, said := out.first(m.ID, func(x play.Line) bool { return isFinal(x) || notFinalYet(x) })
		return said
	})
	if x, _ := out.first(m.ID, func(x play.Line) bool { return isFinal(x) || notFinalYet(x) }); isFinal(x) {
		t.Fatalf("the runner reported the game final (%s) while the relay holds no final result", x.Result)
	}
	if rl.Has(sig.ID) || fold(t, url, m.ID).Final {
		t.Fatal("the relay stored the opponent's signature: the test shows nothing")
	}
	// Once the relay stores it, the next read is final and so is the
	// report.
	publish(t, url, sig)
	eventually(t, "the final report", func() bool {
		_, ok := out.first(m.ID, isFinal)
		return ok
	})
	if x, _ := out.first(m.ID, isFinal); x.Result != play.OutcomeWin {
		t.Fatalf("reported %s, want the runner's win", x.Result)
	}
}
