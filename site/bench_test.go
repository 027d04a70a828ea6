package site

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/match/gomoku"
	"vesper/nostr"
)

// The benchmark world: 10,000 matches between 200 bots over 60 days, about
// 60% gomoku and 30% chess (random legal games of up to 60 plies, most of
// them finished and signed by both players, some in progress), 10% open or
// expired challenges.
//
// Events get their real ids but a dummy signature: signing a quarter of a
// million events takes minutes here, and neither the fold nor the site
// verifies signatures (section 1 is checked before events are stored).
const benchPlayers = 200

// benchMatches is 10,000 unless VESPER_BENCH_MATCHES says otherwise (for
// profiling on a smaller world).
func benchMatches() int {
	if n, err := strconv.Atoi(os.Getenv("VESPER_BENCH_MATCHES")); err == nil && n > 0 {
		return n
	}
	return 10000
}

type benchWorld struct {
	in      Input
	players []string
	// changed is in with 1% of the matches in progress given one more move.
	changed Input
}

var benchOnce = sync.OnceValue(func() *benchWorld { return makeBenchWorld() })

type fakeMatch struct {
	id     string
	events []*nostr.Event
}

func fakeSign(pk string, ev *nostr.Event) *nostr.Event {
	ev.PubKey = pk
	if ev.Tags == nil {
		ev.Tags = nostr.Tags{}
	}
	ev.ID = nostr.ComputeID(ev)
	ev.Sig = strings.Repeat("0", 128)
	return ev
}

func makeBenchWorld() *benchWorld {
	rng := rand.New(rand.NewPCG(1, 2))
	w := &benchWorld{}
	profiles := map[string]Profile{}
	for i := range benchPlayers {
		pk := testkit.Key(fmt.Sprintf("bench-%d", i)).PublicKey()
		w.players = append(w.players, pk)
		profiles[pk] = Profile{Name: fmt.Sprintf("Bot %d", i), Bot: true}
	}
	const start = t0
	end := start + 60*86400
	seen := map[string]int64{}
	var states, changed []*match.State
	inProgress := 0
	total := benchMatches()
	for i := range total {
		a := w.players[rng.IntN(benchPlayers)]
		b := w.players[rng.IntN(benchPlayers)]
		for b == a {
			b = w.players[rng.IntN(benchPlayers)]
		}
		created := start + rng.Int64N(end-start-3*86400)
		kind := nostr.GameGomoku
		r := rng.IntN(10)
		if r >= 6 && r < 9 {
			kind = nostr.GameChess
		}
		if r == 9 {
			created = end - rng.Int64N(10*86400) // some open, some expired
		}
		ch := fakeSign(a, nostr.NewChallenge(kind, "", created))
		m := &fakeMatch{id: ch.ID, events: []*nostr.Event{ch}}
		if r != 9 {
			playBench(rng, m, a, b, kind, created, i%7 == 0)
		}
		for _, ev := range m.events {
			seen[ev.ID] = int64(ev.CreatedAt) + 1
		}
		s, err := match.Fold(m.id, m.events, seen)
		if err != nil {
			panic(err)
		}
		states = append(states, s)
		next := s
		if s.Accepted && !s.Over && inProgress < total/100 {
			if extra := oneMore(s, m); extra != nil {
				seen[extra.ID] = int64(extra.CreatedAt) + 1
				m.events = append(m.events, extra)
				if next, err = match.Fold(m.id, m.events, seen); err != nil {
					panic(err)
				}
				inProgress++
			}
		}
		changed = append(changed, next)
	}
	w.in = Input{States: states, SeenAt: seen, Profiles: profiles, Now: end, Daemon: w.players[0],
		Analysing: true, Analyses: benchAnalyses(states)}
	w.in.RatingGames = RatingGames(states)
	w.changed = w.in
	w.changed.States = changed
	return w
}

// benchAnalyses grades every finished game but one in ten (still being
// analysed), chess with a made-up evaluation that drifts and sometimes
// drops, so the pages carry a graph and every kind of tag.
// VESPER_BENCH_ANALYSES=0 leaves them out, to measure what they cost.
func benchAnalyses(states []*match.State) map[string]*analysis.Game {
	out := map[string]*analysis.Game{}
	if os.Getenv("VESPER_BENCH_ANALYSES") == "0" {
		return out
	}
	for i, s := range states {
		if !s.Over || i%10 == 0 {
			continue
		}
		plies := make([]testPly, s.Plies())
		if s.Kind == nostr.GameChess {
			e := 0
			for j := range plies {
				e += (j*37+i)%61 - 30
				if (j+i)%17 == 0 {
					e -= 400 * (1 - 2*(j%2)) // a blunder by the side to move
				}
				plies[j].after = cp(e)
			}
		}
		out[s.Match] = testAnalysisOf(s, s.Moves, cp(20), plies)
	}
	return out
}

// playBench plays a random legal game; unfinished leaves it in progress.
func playBench(rng *rand.Rand, m *fakeMatch, a, b, kind string, t int64, unfinished bool) {
	add := func(pk string, ev *nostr.Event) { m.events = append(m.events, fakeSign(pk, ev)) }
	t += 60
	add(b, nostr.NewAccept(m.id, a, t))
	plies := 9 + rng.IntN(52)
	var moves []string
	if kind == nostr.GameChess {
		g := chessjs.NewGame()
		for len(moves) < plies && !g.Outcome().Over {
			legal := g.LegalMoves()
			mv := legal[rng.IntN(len(legal))]
			g.Move(mv.UCI())
			moves = append(moves, mv.UCI())
		}
	} else {
		g := gomoku.NewGame()
		for len(moves) < plies {
			// Within the central 9x9 (81 points, more than the 60 plies at
			// most), so fives happen in a fair share of the games.
			p := gomoku.Point{Col: 3 + rng.IntN(9), Row: 3 + rng.IntN(9)}
			if g.At(p) != 0 {
				continue
			}
			mv, _ := g.Move(p.String())
			moves = append(moves, mv)
			if over, _, _ := g.Outcome(); over {
				break
			}
		}
	}
	for i, mv := range moves {
		pk := a
		if i%2 == 1 {
			pk = b
		}
		t += 30 + rng.Int64N(600)
		add(pk, nostr.NewMove(m.id, i+1, mv, t))
	}
	if unfinished {
		return
	}
	s, err := match.Fold(m.id, m.events, nil)
	if err != nil {
		panic(err)
	}
	if !s.Over {
		loser := a
		if s.ToMove() == match.Second {
			loser = b
		}
		add(loser, nostr.NewMove(m.id, s.Plies()+1, "resign", t+10))
		if s, err = match.Fold(m.id, m.events, nil); err != nil {
			panic(err)
		}
	}
	r := nostr.Result{Result: s.Result, Reason: string(s.Reason), Plies: s.Plies(), FinalHash: s.FinalHash()}
	add(a, nostr.NewResult(m.id, r, t+20))
	add(b, nostr.NewResult(m.id, r, t+30))
}

// oneMore returns a legal next move event for a match in progress.
func oneMore(s *match.State, m *fakeMatch) *nostr.Event {
	g := s.Board()
	t := s.ClockStart() + 100
	var mv string
	if s.Kind == nostr.GameChess {
		for _, cand := range []string{"a2a3", "h2h3", "a7a6", "h7h6", "b1c3", "g8f6"} {
			if c, err := g.Clone().Play(cand); err == nil {
				mv = c
				break
			}
		}
	} else {
		for c := 0; c < gomoku.Size && mv == ""; c++ {
			p := gomoku.Point{Col: c, Row: 0}
			if cm, err := g.Clone().Play(p.String()); err == nil {
				mv = cm
			}
		}
	}
	if mv == "" {
		return nil
	}
	return fakeSign(s.Player(s.ToMove()), nostr.NewMove(m.id, s.Plies()+1, mv, t))
}

// BenchmarkBuild10k measures a full build of the 10,000-match site into an
// empty place, a rebuild with nothing changed, and a rebuild after 1% of the
// matches got a move (the daemon's usual 15-minute case).
func BenchmarkBuild10k(b *testing.B) {
	w := benchOnce()
	// VESPER_BENCH_DIR puts the builds elsewhere than the test's temporary
	// directory, e.g. on tmpfs to separate rendering from the disk.
	tmp := func(b *testing.B) string {
		if dir := os.Getenv("VESPER_BENCH_DIR"); dir != "" {
			d, err := os.MkdirTemp(dir, "bench")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
		return b.TempDir()
	}
	// cpu-s/op is the process's user+system CPU per build: steadier than
	// the wall clock on a shared machine.
	var ru0 syscall.Rusage
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := func(b *testing.B) {
		b.ResetTimer()
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	}
	report := func(b *testing.B, st Stats) {
		used := cpu() - time.Duration(ru0.Utime.Nano()+ru0.Stime.Nano())
		b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(st.Pages), "files")
		b.ReportMetric(float64(st.Written), "written")
		b.ReportMetric(float64(st.Unchanged), "linked")
	}
	b.Run("full", func(b *testing.B) {
		start(b)
		var st Stats
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			out := filepath.Join(tmp(b), "site")
			b.StartTimer()
			var err error
			if st, err = Build(w.in, out); err != nil {
				b.Fatal(err)
			}
		}
		report(b, st)
	})
	b.Run("unchanged", func(b *testing.B) {
		out := filepath.Join(tmp(b), "site")
		if _, err := Build(w.in, out); err != nil {
			b.Fatal(err)
		}
		start(b)
		var st Stats
		for i := 0; i < b.N; i++ {
			var err error
			if st, err = Build(w.in, out); err != nil {
				b.Fatal(err)
			}
		}
		report(b, st)
	})
	b.Run("1pct-changed", func(b *testing.B) {
		out := filepath.Join(tmp(b), "site")
		if _, err := Build(w.in, out); err != nil {
			b.Fatal(err)
		}
		start(b)
		var st Stats
		for i := 0; i < b.N; i++ {
			in := w.changed
			if i%2 == 1 {
				in = w.in
			}
			var err error
			if st, err = Build(in, out); err != nil {
				b.Fatal(err)
			}
		}
		report(b, st)
	})
	if dir := os.Getenv("VESPER_BENCH_SITE"); dir != "" {
		// Keep one build to look at.
		if _, err := Build(w.in, dir); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdate10k is the daemon's periodic build since it follows what
// changed: Update after 1% of the matches in progress got a move (and
// back), only those matches loaded, against the previous build.
func BenchmarkUpdate10k(b *testing.B) { benchUpdate(b, false) }

// BenchmarkUpdate10kByStatus is BenchmarkUpdate10k with the analyses
// passed as AnalysisStatus and LoadAnalysis, as a daemon with many does;
// loads/op counts the analyses an Update read.
func BenchmarkUpdate10kByStatus(b *testing.B) { benchUpdate(b, true) }

func benchUpdate(b *testing.B, byStatus bool) {
	w := benchOnce()
	var loads atomic.Int64
	byStatusInput := func(in Input) Input {
		if !byStatus {
			return in
		}
		store := in.Analyses
		in.Analyses, in.AnalysisStatus = nil, make(map[string]analysis.Status, len(store))
		for id, g := range store {
			in.AnalysisStatus[id] = g.Status
		}
		in.LoadAnalysis = func(id string) (*analysis.Game, error) {
			loads.Add(1)
			return store[id], nil
		}
		return in
	}
	byID := func(in Input) map[string]*match.State {
		m := make(map[string]*match.State, len(in.States))
		for _, s := range in.States {
			m[s.Match] = s
		}
		return m
	}
	before, after := byID(w.in), byID(w.changed)
	var changed []string
	for id, s := range after {
		if before[id] != s {
			changed = append(changed, id)
		}
	}
	loader := func(m map[string]*match.State) Loader {
		return func(id string) (*match.State, map[string]int64, error) { return m[id], w.in.SeenAt, nil }
	}
	out := filepath.Join(b.TempDir(), "site")
	if _, err := Build(byStatusInput(w.in), out); err != nil {
		b.Fatal(err)
	}
	inBefore, inAfter := byStatusInput(w.in), byStatusInput(w.changed)
	b.ResetTimer()
	loads.Store(0)
	var st Stats
	for i := 0; i < b.N; i++ {
		in, load := inAfter, loader(after)
		if i%2 == 1 {
			in, load = inBefore, loader(before)
		}
		var err error
		if st, err = Update(in, changed, load, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(changed)), "changed")
	b.ReportMetric(float64(st.Written), "written")
	b.ReportMetric(float64(st.Unchanged), "linked")
	if byStatus {
		b.ReportMetric(float64(loads.Load())/float64(b.N), "loads/op")
		b.ReportMetric(float64(len(inAfter.AnalysisStatus)), "analyses")
	}
}
