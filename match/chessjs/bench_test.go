package chessjs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/notnil/chess"
)

// The replay benchmarks of docs/PERFORMANCE.md: the games of
// testdata/replay_games.json (random games chess.js generated), replayed move
// by move as the fold does: parse and apply the string, print the FEN, ask
// whether the game is over. BenchmarkChessJSReplay* measures chess.js 1.4.0
// doing the same with conformance/chessjs/bench.js, in the same run.

type replayGames struct {
	Games []struct {
		SAN []string `json:"san"`
		UCI []string `json:"uci"`
	} `json:"games"`
}

func loadReplayGames(b *testing.B) replayGames {
	data, err := os.ReadFile(filepath.Join("testdata", "replay_games.json"))
	if err != nil {
		b.Fatal(err)
	}
	var rg replayGames
	if err := json.Unmarshal(data, &rg); err != nil {
		b.Fatal(err)
	}
	return rg
}

func benchmarkReplay(b *testing.B, pick func(i int) []string, games int) {
	b.ReportAllocs()
	var g *Game
	var moves []string
	gi, mi := 0, 0
	for i := 0; i < b.N; i++ {
		if mi == len(moves) {
			moves, mi = pick(gi%games), 0
			gi++
			g = NewGame()
		}
		if _, err := g.Move(moves[mi]); err != nil {
			b.Fatal(err)
		}
		_ = g.FEN()
		_ = g.Outcome()
		mi++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}

// BenchmarkReplaySAN replays the games from SAN strings; one op is one move.
func BenchmarkReplaySAN(b *testing.B) {
	rg := loadReplayGames(b)
	b.ResetTimer()
	benchmarkReplay(b, func(i int) []string { return rg.Games[i].SAN }, len(rg.Games))
}

// BenchmarkReplayUCI replays the games from UCI strings; one op is one move.
func BenchmarkReplayUCI(b *testing.B) {
	rg := loadReplayGames(b)
	b.ResetTimer()
	benchmarkReplay(b, func(i int) []string { return rg.Games[i].UCI }, len(rg.Games))
}

func BenchmarkChessJSReplaySAN(b *testing.B) { benchmarkChessJS(b, "san") }
func BenchmarkChessJSReplayUCI(b *testing.B) { benchmarkChessJS(b, "uci") }

// benchmarkChessJS runs bench.js once, which warms up on one pass over the
// games and then replays them for at least two seconds (so the benchmark
// stops at b.N = 1), and reports its ns per move as ns/op.
func benchmarkChessJS(b *testing.B, kind string) {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(conformanceDir, "node_modules", "chess.js"))
	}
	if err != nil {
		b.Skipf("chess.js not installed (%v): run `npm ci --prefix conformance/chessjs`", err)
	}
	if b.N > 1 {
		return // already measured at b.N = 1
	}
	games, err := filepath.Abs(filepath.Join("testdata", "replay_games.json"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, "bench.js", kind, games, "2")
	cmd.Dir = conformanceDir
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("bench.js: %v", err)
	}
	type result struct {
		MovesPerSec float64 `json:"movesPerSec"`
		NsPerMove   float64 `json:"nsPerMove"`
	}
	var res struct{ SAN, UCI *result }
	if err := json.Unmarshal(out, &res); err != nil {
		b.Fatalf("bench.js output %q: %v", out, err)
	}
	r := res.SAN
	if kind == "uci" {
		r = res.UCI
	}
	if r == nil {
		b.Fatalf("bench.js output %q has no %s result", out, kind)
	}
	b.ReportMetric(r.NsPerMove, "ns/op")
	b.ReportMetric(r.MovesPerSec, "moves/s")
}

// BenchmarkNotnilGameReplaySAN is the same replay on notnil/chess's own Game
// (MoveStr, FEN, Outcome), for comparison: it is what this package avoids.
func BenchmarkNotnilGameReplaySAN(b *testing.B) {
	rg := loadReplayGames(b)
	b.ReportAllocs()
	b.ResetTimer()
	var g *chess.Game
	var moves []string
	gi, mi := 0, 0
	for i := 0; i < b.N; i++ {
		if mi == len(moves) {
			moves, mi = rg.Games[gi%len(rg.Games)].SAN, 0
			gi++
			g = chess.NewGame()
		}
		if err := g.MoveStr(moves[mi]); err != nil {
			b.Fatalf("notnil refuses %q: %v", moves[mi], err)
		}
		_ = g.FEN()
		_ = g.Outcome()
		mi++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
}
