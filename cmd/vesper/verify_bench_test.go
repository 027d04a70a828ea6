package main

import (
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/store"
)

// writeCorpus writes n match.json files of random chess games (seeded) with
// their results signed, as the site publishes them.
func writeCorpus(tb testing.TB, dir string, n int) []string {
	rng := rand.New(rand.NewSource(42))
	var paths []string
	for i := 0; i < n; i++ {
		a, b := testkit.Key(fmt.Sprintf("ca%d", i)), testkit.Key(fmt.Sprintf("cb%d", i))
		t := int64(1_750_000_000 + i*1000)
		m := testkit.NewMatch(a, b, "chess", "", t)
		m.Accept(t + 1)
		g := chessjs.NewGame()
		var moves []string
		for ply := 0; ply < 40+rng.Intn(120) && !g.Outcome().Over; ply++ {
			legal := g.LegalMoves()
			mv := legal[rng.Intn(len(legal))]
			if _, err := g.Move(mv.UCI()); err != nil {
				tb.Fatal(err)
			}
			moves = append(moves, mv.SAN) // agents post SAN as often as UCI
		}
		last := m.Play(moves, t+2, 5)
		st, err := match.Fold(m.ID, m.Events, nil)
		if err != nil {
			tb.Fatal(err)
		}
		r := st.Computed()
		if !st.Over {
			r.Result, r.Reason = match.Draw, "agreement"
		}
		m.Result(a, r, last+1)
		m.Result(b, r, last+2)
		var stored []store.StoredEvent
		for _, ev := range m.Events {
			stored = append(stored, store.StoredEvent{Event: ev, SeenAt: int64(ev.CreatedAt)})
		}
		p := filepath.Join(dir, fmt.Sprintf("m-%04d.json", i))
		if err := os.WriteFile(p, matchJSON(m.ID, stored, last+10), 0o644); err != nil {
			tb.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// TestWriteVerifyCorpus writes the 150-file corpus used by the verify
// benchmark and the Node baseline when VESPER_CORPUS_DIR is set.
func TestWriteVerifyCorpus(t *testing.T) {
	dir := os.Getenv("VESPER_CORPUS_DIR")
	if dir == "" {
		t.Skip("set VESPER_CORPUS_DIR to write the corpus")
	}
	os.MkdirAll(dir, 0o755)
	writeCorpus(t, dir, 150)
}

// BenchmarkVerify150 is `vesper verify` over 150 match.json files:
// signatures and the fold, on all cores.
func BenchmarkVerify150(b *testing.B) {
	paths := writeCorpus(b, b.TempDir(), 150)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := verifyFiles(paths, nil, true, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
