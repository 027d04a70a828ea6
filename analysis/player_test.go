package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vesper/internal/testkit"
)

// TestUCIPlayerStockfish: `vesper play --uci` asks Stockfish, with an
// option set, for a move at a node limit and gets a legal one with a score.
func TestUCIPlayerStockfish(t *testing.T) {
	p, err := StartUCIPlayer(t.Context(), stockfish(t), map[string]string{"Threads": "1", "Hash": "16"}, testkit.Scale(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.NewGame(t.Context()); err != nil {
		t.Fatal(err)
	}
	// After 1. f3 e5 2. g4, mate in one.
	got, err := p.Best(t.Context(), []string{"f2f3", "e7e5", "g2g4"}, PlayLimits{Nodes: 20000})
	if err != nil {
		t.Fatal(err)
	}
	if got.Move != "d8h4" || !got.Scored || got.Mate != 1 {
		t.Fatalf("got %+v, want d8h4 with mate 1", got)
	}
}

// TestUCIPlayerHangs: an engine that never answers "go" is killed at the
// timeout and the error says which engine.
func TestUCIPlayerHangs(t *testing.T) {
	script := filepath.Join(t.TempDir(), "engine.sh")
	body := "#!/bin/sh\nwhile read -r l; do case \"$l\" in uci) echo 'id name hang'; echo uciok;; isready) echo readyok;; esac; done\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	// The timeout bounds the handshake too, which must not run out on a
	// busy machine before the search it is meant for: 3 s, expected to
	// run out in Best.
	p, err := StartUCIPlayer(t.Context(), script, nil, testkit.Scale(3*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Name() != "hang" {
		t.Fatalf("name %q", p.Name())
	}
	_, err = p.Best(t.Context(), nil, PlayLimits{Movetime: 10 * time.Millisecond})
	var ee *EngineError
	if !errors.As(err, &ee) || ee.Engine != script {
		t.Fatalf("err %v, want an EngineError naming the engine", err)
	}
}
