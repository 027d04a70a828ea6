package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/reveal"
)

// revealOf signs a reveal by k of entries at t.
func revealOf(t *testing.T, k nostr.SecretKey, matchID string, at int64, entries ...nostr.RevealEntry) *nostr.Event {
	t.Helper()
	evs, err := nostr.NewReveal(matchID, entries, at)
	if err != nil || len(evs) != 1 {
		t.Fatalf("reveal: %v (%d events)", err, len(evs))
	}
	return testkit.Sign(k, evs[0])
}

func storedIDs(t *testing.T, n *Daemon, matchID string) []string {
	t.Helper()
	stored, err := n.st.MatchEvents(context.Background(), matchID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, se := range stored {
		ids = append(ids, se.Event.ID)
	}
	return ids
}

func matchJSON(t *testing.T, n *Daemon, matchID string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	if _, err := BuildSite(context.Background(), n.st, out, "", false, tNow); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "m", matchID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A reveal belongs to its match only when its author is a player and it
// names a committing event of theirs not named before (PROTOCOL.md
// section 8.2, issue 38 item 1): 400 strangers' reveals of 2 KB, a
// player's reveal of the opponent's move, of nothing, or of an event it
// revealed already, are dropped before the store and counted, and the
// match's export does not change; the honest reveal is kept.
func TestStrangersRevealsBelongToNoMatch(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	n.met = newMetrics(func() int { return 0 })
	a, b := testkit.Key("alice"), testkit.Key("bob")
	at := tNow - 3600
	m := testkit.NewMatch(a, b, nostr.GameChess, "", at)
	m.Accept(at + 10)
	salt, text := nostr.NewSalt(), "f3, to see who reads this"
	first := m.Add(a, nostr.WithTalk(nostr.NewMove(m.ID, 1, "f3", at+20), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, text)}))
	bsalt, btext := nostr.NewSalt(), "e5"
	second := m.Add(b, nostr.WithTalk(nostr.NewMove(m.ID, 2, "e7e5", at+30), nostr.Talk{Reasoning: nostr.ReasoningHash(bsalt, btext)}))
	m.Move(a, 3, "g2g4", at+40)
	m.Move(b, 4, "d8h4", at+50)
	deliver(t, n, "wss://one.example", m.Events...)
	before := matchJSON(t, n, m.ID)
	stored := storedIDs(t, n, m.ID)

	pad := strings.Repeat("x", 2048)
	var junk []*nostr.Event
	for i := range 400 {
		k := testkit.Key(fmt.Sprint("stranger", i))
		junk = append(junk, revealOf(t, k, m.ID, at+100+int64(i), nostr.RevealEntry{Event: first.ID, Salt: salt, Text: pad}))
	}
	// A player naming the other's move, or an event of no match.
	junk = append(junk,
		revealOf(t, b, m.ID, at+60, nostr.RevealEntry{Event: first.ID, Salt: salt, Text: text}),
		revealOf(t, a, m.ID, at+61, nostr.RevealEntry{Event: strings.Repeat("e", 64), Salt: salt, Text: text}))
	for i := 0; i < len(junk); i += 100 {
		deliver(t, n, "wss://stranger.example", junk[i:min(i+100, len(junk))]...)
	}
	if got := storedIDs(t, n, m.ID); !slices.Equal(got, stored) {
		t.Errorf("strangers' reveals stored with the match: %d events, want %d", len(got), len(stored))
	}
	if after := matchJSON(t, n, m.ID); string(after) != string(before) {
		t.Errorf("match.json changed: %d bytes, was %d", len(after), len(before))
	}
	if got := metric(t, n.met, "vesper_events_rejected_total", "reason", reveal.NotPlayer); got != 400 {
		t.Errorf("%v counted %s, want 400", got, reveal.NotPlayer)
	}
	if got := metric(t, n.met, "vesper_events_rejected_total", "reason", reveal.NamesNothing); got != 2 {
		t.Errorf("%v counted %s, want 2", got, reveal.NamesNothing)
	}

	// The honest reveals are kept, once per event: a second reveal of the
	// same event is over what its author could reveal.
	honest := revealOf(t, a, m.ID, at+200, nostr.RevealEntry{Event: first.ID, Salt: salt, Text: text})
	again := revealOf(t, a, m.ID, at+201, nostr.RevealEntry{Event: first.ID, Salt: salt, Text: text + " (again)"})
	bobs := revealOf(t, b, m.ID, at+202, nostr.RevealEntry{Event: second.ID, Salt: bsalt, Text: btext})
	deliver(t, n, "wss://one.example", honest, again)
	deliver(t, n, "wss://one.example", bobs)
	got := storedIDs(t, n, m.ID)
	if !slices.Contains(got, honest.ID) || !slices.Contains(got, bobs.ID) {
		t.Error("a player's reveal of their own committing event is not stored")
	}
	if slices.Contains(got, again.ID) {
		t.Error("a second reveal of the same event is stored")
	}
}

// The edge of the rule: a reveal that comes before what it names. In the
// same batch as its committing move (or the match's accept) it is kept;
// alone, before the move, it names nothing stored and is dropped, and kept
// when a sync offers it again after the move.
func TestRevealBeforeItsMove(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	a, b := testkit.Key("alice"), testkit.Key("bob")
	at := tNow - 3600
	m := testkit.NewMatch(a, b, nostr.GameChess, "", at)
	m.Accept(at + 10)
	salt, text := nostr.NewSalt(), "e4"
	mv := m.Add(a, nostr.WithTalk(nostr.NewMove(m.ID, 1, "e2e4", at+20), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, text)}))
	rv := revealOf(t, a, m.ID, at+30, nostr.RevealEntry{Event: mv.ID, Salt: salt, Text: text})

	// Everything in one batch, the reveal first.
	deliver(t, n, "wss://one.example", rv, m.Events[0], m.Events[1], mv)
	if !slices.Contains(storedIDs(t, n, m.ID), rv.ID) {
		t.Error("a reveal in the batch of its match's challenge, accept and move is dropped")
	}

	n2 := testNode(t, nostr.SecretKey{})
	deliver(t, n2, "wss://one.example", m.Events[0], m.Events[1])
	deliver(t, n2, "wss://one.example", rv)
	if slices.Contains(storedIDs(t, n2, m.ID), rv.ID) {
		t.Error("a reveal naming a move nobody has seen is stored")
	}
	deliver(t, n2, "wss://one.example", mv)
	deliver(t, n2, "wss://one.example", rv)
	if !slices.Contains(storedIDs(t, n2, m.ID), rv.ID) {
		t.Error("a reveal offered again after its move is dropped")
	}
}
