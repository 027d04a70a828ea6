package daemon

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// A reveal (PROTOCOL.md section 8.2) is stored with its match and marks
// the match for the site, without a re-fold and without a change to the
// stored summary; the site's match.json then carries it and reasoning.json
// says it verified. A reveal naming two matches is not stored.
func TestDaemonStoresReveals(t *testing.T) {
	n := testNode(t, nostr.SecretKey{})
	ctx := context.Background()
	a, b := testkit.Key("alice"), testkit.Key("bob")
	at := tNow - 3600
	m := testkit.NewMatch(a, b, nostr.GameChess, "", at)
	m.Accept(at + 10)
	salt, text := nostr.NewSalt(), "f3 opens the king's diagonal"
	first := m.Add(a, nostr.WithTalk(nostr.NewMove(m.ID, 1, "f3", at+20), nostr.Talk{Reasoning: nostr.ReasoningHash(salt, text)}))
	for i, mv := range []string{"e7e5", "g2g4", "d8h4"} {
		k := b
		if i%2 == 1 {
			k = a
		}
		m.Move(k, i+2, mv, at+30+int64(i)*10)
	}
	last := at + 50
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || !s.Over {
		t.Fatalf("fixture: %v over %v", err, s != nil && s.Over)
	}
	res := nostr.Result{Result: "second", Reason: "checkmate", Plies: s.Plies(), FinalHash: s.FinalHash()}
	m.Result(a, res, last+10)
	m.Result(b, res, last+20)
	deliver(t, n, "wss://one.example", m.Events...)
	before := storedSummary(t, n, m.ID)
	if !before.Final {
		t.Fatalf("fixture: not final: %+v", before)
	}
	rawBefore, _, _ := n.st.Summary(ctx, m.ID)
	siteOf(n).start() // take the marks the game left
	siteOf(n).finish(nil, true)

	evs, err := nostr.NewReveal(m.ID, []nostr.RevealEntry{{Event: first.ID, Salt: salt, Text: text}}, last+100)
	if err != nil {
		t.Fatal(err)
	}
	rv := testkit.Sign(a, evs[0])
	two := testkit.Sign(a, &nostr.Event{Kind: nostr.KindReveal, CreatedAt: nostr.Timestamp(last + 101),
		Tags: nostr.Tags{{"g", m.ID}, {"g", strings.Repeat("c", 64)}}, Content: rv.Content})
	refolds := n.refolds.Load()
	deliver(t, n, "wss://one.example", rv, two)
	if got := n.refolds.Load() - refolds; got != 0 {
		t.Errorf("a reveal re-folded %d matches; the fold never reads it", got)
	}
	stored, err := n.st.MatchEvents(ctx, m.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, se := range stored {
		ids = append(ids, se.Event.ID)
	}
	if !slices.Contains(ids, rv.ID) {
		t.Error("the reveal is not stored with its match")
	}
	if slices.Contains(ids, two.ID) {
		t.Error("a reveal with two g tags is stored")
	}
	if rawAfter, _, _ := n.st.Summary(ctx, m.ID); !bytes.Equal(rawAfter.JSON, rawBefore.JSON) {
		t.Errorf("the summary changed:\n%s\n%s", rawBefore.JSON, rawAfter.JSON)
	}
	ids, _, _ = siteOf(n).start()
	siteOf(n).finish(nil, true)
	if !slices.Equal(ids, []string{m.ID}) {
		t.Errorf("site marks after the reveal: %v, want its match", ids)
	}

	out := filepath.Join(t.TempDir(), "site")
	if _, err := BuildSite(ctx, n.st, out, "", false, tNow); err != nil {
		t.Fatal(err)
	}
	mj, err := os.ReadFile(filepath.Join(out, "m", m.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(mj, nostr.MarshalEvent(rv)) {
		t.Error("match.json does not carry the reveal exactly as signed")
	}
	// The build's cards count the reveal among the match's events as the
	// store's stamps do: a restarted daemon finds nothing stale.
	if stale, err := siteStale(ctx, n.st, out); err != nil || len(stale) != 0 {
		t.Errorf("stale after a full build: %v %v", stale, err)
	}
	rj, err := os.ReadFile(filepath.Join(out, "m", m.ID+".reasoning.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(rj, []byte(`"status":"verified"`)) {
		t.Errorf("reasoning.json does not say verified: %s", rj)
	}
}
