package search

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vesper/engine/board"
)

// The engine must see the protocol's automatic endings exactly where
// chess.js 1.4.0 puts them (PROTOCOL.md section 4). Two references check
// that: the shared conformance sample, whose summaries were computed with
// chess.js, and, when node and chess.js are installed, chess.js itself.

// TestConformanceSampleEndings replays every chess match of the shared
// sample and compares where and why it ended by rule, and the final
// position's hash.
func TestConformanceSampleEndings(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "conformance", "sample", "m-*.json"))
	if len(files) == 0 {
		t.Skip("shared/conformance/sample not found beside the module")
	}
	ruleEnds := map[string]bool{ReasonCheckmate: true, ReasonStalemate: true,
		ReasonThreefoldRepetition: true, ReasonFiftyMoveRule: true, ReasonInsufficientMaterial: true}
	checked := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Summary struct {
				Game      string   `json:"game"`
				Status    string   `json:"status"`
				Reason    *string  `json:"reason"`
				Plies     int      `json:"plies"`
				FinalHash string   `json:"final_hash"`
				Moves     []string `json:"moves"`
			} `json:"summary"`
		}
		if err := json.Unmarshal(raw, &m); err != nil || m.Summary.Game != "chess" {
			continue
		}
		s := m.Summary
		t.Run(filepath.Base(f), func(t *testing.T) {
			g, err := NewGame("", s.Moves)
			if err != nil {
				t.Fatal(err)
			}
			wantEnd, wantReason := -1, ""
			if s.Status == "over" && s.Reason != nil && ruleEnds[*s.Reason] {
				wantEnd, wantReason = s.Plies, *s.Reason
			}
			if g.EndedAt != wantEnd || g.Reason != wantReason {
				t.Errorf("ended at %d (%q), want %d (%q)", g.EndedAt, g.Reason, wantEnd, wantReason)
			}
			sum := sha256.Sum256([]byte("chess:" + g.Pos.FEN()))
			if got := hex.EncodeToString(sum[:]); got != s.FinalHash {
				t.Errorf("final hash of %s is %s, want %s", g.Pos.FEN(), got, s.FinalHash)
			}
		})
		checked++
	}
	if checked == 0 {
		t.Error("no chess match in the sample")
	}
}

const chessjsScript = `
const { Chess } = require(process.argv[2]);
const games = JSON.parse(require('fs').readFileSync(process.argv[3], 'utf8'));
const bad = [];
for (const g of games) {
  const c = new Chess();
  const classes = new Map();
  for (let i = 0; i < g.steps.length; i++) {
    const st = g.steps[i], fen = c.fen();
    // Verbose move lists are slow in chess.js (each move gets its SAN), so
    // the legal moves are compared every few plies.
    const legal = i % 8 === 0 || i === g.steps.length - 1 ?
      c.moves({ verbose: true }).map(m => m.from + m.to + (m.promotion || '')).sort() : st.legal;
    let over = '';
    if (c.isCheckmate()) over = 'checkmate';
    else if (c.isStalemate()) over = 'stalemate';
    else if (c.isThreefoldRepetition()) over = 'threefold_repetition';
    else if (c.isDrawByFiftyMoves()) over = 'fifty_move_rule';
    else if (c.isInsufficientMaterial()) over = 'insufficient_material';
    const h = c.hash();
    if (fen !== st.fen) bad.push('fen ' + fen + ' vs ' + st.fen);
    if (legal.join(' ') !== st.legal.join(' ')) bad.push('legal moves differ in ' + fen);
    if (over !== st.over) bad.push('ending ' + over + ' vs ' + st.over + ' in ' + fen);
    if (classes.has(h) && classes.get(h) !== st.key) bad.push('repetition identity differs in ' + fen);
    classes.set(h, st.key);
    if (i < g.moves.length) {
      const u = g.moves[i];
      c.move({ from: u.slice(0, 2), to: u.slice(2, 4), promotion: u[4] });
    }
  }
}
console.log(JSON.stringify(bad.slice(0, 20)));
`

// TestAgainstChessJS plays random games (biased towards shuffling pieces so
// that repetitions happen) and has chess.js replay them: FEN, legal moves,
// the ending and which positions count as the same must all agree.
func TestAgainstChessJS(t *testing.T) {
	if testing.Short() {
		t.Skip("needs node; skipped in -short")
	}
	node, err := exec.LookPath("node")
	lib, _ := filepath.Abs(filepath.Join("..", "..", "conformance", "chessjs", "node_modules", "chess.js"))
	if _, statErr := os.Stat(lib); err != nil || statErr != nil {
		t.Skip("node or conformance/chessjs/node_modules/chess.js not installed")
	}
	type step struct {
		FEN   string   `json:"fen"`
		Legal []string `json:"legal"`
		Over  string   `json:"over"`
		Key   string   `json:"key"`
	}
	type game struct {
		Moves []string `json:"moves"`
		Steps []step   `json:"steps"`
	}
	rng := rand.New(rand.NewPCG(7, 9))
	var games []game
	for range 10 {
		g := mustGame(t, "")
		var rec game
		for {
			legal := g.Pos.LegalMoves()
			ls := make([]string, len(legal))
			for i, m := range legal {
				ls[i] = m.UCI()
			}
			slices.Sort(ls)
			st := step{FEN: g.Pos.FEN(), Legal: ls, Over: g.Over(), Key: hex.EncodeToString(keyBytes(g.Pos.Key()))}
			rec.Steps = append(rec.Steps, st)
			if st.Over != "" {
				break
			}
			m := legal[rng.IntN(len(legal))]
			if rng.IntN(3) == 0 {
				for _, x := range legal {
					if x.IsQuiet() && x.Moving() != board.Pawn {
						m = x
						break
					}
				}
			}
			rec.Moves = append(rec.Moves, m.UCI())
			g.Play(m)
		}
		games = append(games, rec)
	}
	dir := t.TempDir()
	data, _ := json.Marshal(games)
	gamesFile, script := filepath.Join(dir, "games.json"), filepath.Join(dir, "check.js")
	if err := os.WriteFile(gamesFile, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(chessjsScript), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, script, lib, gamesFile).Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var bad []string
	if err := json.Unmarshal(out, &bad); err != nil {
		t.Fatalf("node printed %q", out)
	}
	if len(bad) > 0 {
		t.Errorf("chess.js disagrees:\n%s", strings.Join(bad, "\n"))
	}
}

func keyBytes(k uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(k >> (56 - 8*i))
	}
	return b
}
