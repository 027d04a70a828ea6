package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
	"vesper/store"
)

// Issue 38 item 3: a listed player's game that turns final behind 2,000
// backdated junk games, while the worker is in the middle of its batch,
// is graded next: not after the batch (junk stored before it), nor after
// the junk (junk stored after it, which the queue's newest-first order
// puts ahead). The grader is a fake that takes perGame of a fake clock
// per game: time here is counted, not waited.
func TestRealGameAnalysedBehindJunk(t *testing.T) {
	for name, junkAt := range map[string]int64{"junk before": tNow - 10_000, "junk after": tNow} {
		t.Run(name, func(t *testing.T) { realBehindJunk(t, junkAt) })
	}
}

func realBehindJunk(t *testing.T, junkAt int64) {
	n := testNode(t, nostr.SecretKey{})
	n.analyst = &analyst{wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alice, bob := testkit.Key("alice"), testkit.Key("bob")
	profile := testkit.Sign(alice, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(tNow - 7200),
		Tags: nostr.Tags{}, Content: `{"name":"alice","bot":true}`})
	if err := n.st.PutProfile(ctx, profile); err != nil {
		t.Fatal(err)
	}
	final := func(id, first, second string, at int64) {
		t.Helper()
		if err := n.st.PutSummary(ctx, store.Summary{Match: id, Game: nostr.GameChess, First: first, Second: second,
			Status: "over", Final: true, UpdatedAt: at, JSON: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	hexOf := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	const junk = 2000
	for i := range junk {
		// Fresh keys on both sides: each game in the first round of the
		// queue, as the real one.
		final(hexOf(fmt.Sprint("junk", i)), hexOf(fmt.Sprint("a", i)), hexOf(fmt.Sprint("b", i)), junkAt+int64(i))
	}
	real := hexOf("real")
	const perGame = 30 * time.Second
	var clock time.Duration // fake time spent grading
	var graded int
	var finalAt, gradedAt time.Duration = -1, -1
	grade := func(ctx context.Context, id string) (time.Duration, bool) {
		clock += perGame
		graded++
		if err := n.st.PutAnalysis(ctx, store.Analysis{Match: id, Status: "done", Engine: "fake", JSON: []byte(`{}`), UpdatedAt: tNow}); err != nil {
			t.Error(err)
			return 0, false
		}
		if id == real {
			gradedAt = clock
			cancel()
		}
		if graded == 5 {
			// The real game ends while the worker is in its batch.
			final(real, alice.PublicKey(), bob.PublicKey(), tNow+1)
			finalAt = clock
			n.wakeAnalyst()
		}
		if graded > junk+1 {
			cancel()
		}
		return 0, true
	}
	n.analyseQueue(ctx, grade, 1, testkit.Scale(time.Minute))
	if gradedAt < 0 {
		t.Fatalf("the real game was never graded (%d games graded)", graded)
	}
	wait := gradedAt - finalAt
	t.Logf("graded %v after it turned final (%d games of %v each)", wait, wait/perGame, perGame)
	if wait > perGame {
		t.Errorf("the real game waited %v behind the junk (%d games), want the next game", wait, wait/perGame-1)
	}
}
