package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"vesper/match"
	"vesper/nostr"
)

// gen builds one match. Probabilities below are per match or per ply; they
// aim at a season where most games are played out cleanly and every rule of
// PROTOCOL.md section 2 is met by some event.
type gen struct {
	cfg   *Config
	r     *rand.Rand
	keys  []nostr.SecretKey
	pubs  []string
	m     *Match
	clk   clock
	board match.Game // the counted moves so far, kept in step with the fold
	a, b  int        // challenger and acceptor
	seen  map[string]int64
	err   error
}

func generateMatch(cfg *Config, keys []nostr.SecretKey, pubs []string, i int) (*Match, error) {
	r := rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1))
	span := int64(cfg.Days) * 86400
	start := cfg.End - span + r.Int64N(max(span-600, 1))
	g := &gen{cfg: cfg, r: r, keys: keys, pubs: pubs, seen: map[string]int64{},
		clk: newClock(start, cfg.End, cfg.liveSeconds())}
	g.a = r.IntN(len(keys))
	g.b = g.other(g.a)
	kind := nostr.GameChess
	if gomokuShare := 0.4; cfg.Long && r.Float64() < gomokuShare/2 || !cfg.Long && r.Float64() < gomokuShare {
		kind = nostr.GameGomoku
	}
	g.m = &Match{Game: kind, First: g.a, Second: -1}
	g.board, _ = match.NewGame(kind)
	switch p := r.Float64(); {
	case p < 0.02:
		g.invalid()
	case p < 0.10:
		g.open()
	default:
		g.game()
	}
	if g.err != nil {
		return nil, g.err
	}
	return g.m, nil
}

func (g *gen) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// other picks an agent that is none of not.
func (g *gen) other(not ...int) int {
	for {
		if c := g.r.IntN(len(g.keys)); !slices.Contains(not, c) {
			return c
		}
	}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

// logGap is a duration between lo and hi seconds, uniform in its logarithm:
// most replies are quick, a few take hours.
func (g *gen) logGap(lo, hi float64) int64 {
	return int64(math.Exp(math.Log(lo) + g.r.Float64()*(math.Log(hi)-math.Log(lo))))
}

func (g *gen) moveGap() int64 { return g.logGap(5, 3*3600) }

func (g *gen) quick() int64 { return g.logGap(3, 600) }

func (g *gen) sign(agent int, ev *nostr.Event) *nostr.Event {
	if err := g.keys[agent].Sign(ev); err != nil {
		g.fail(err)
	}
	g.m.Events = append(g.m.Events, ev)
	return ev
}

func (g *gen) challenge(invitee string) {
	ev := g.sign(g.a, nostr.NewChallenge(g.m.Game, invitee, g.clk.advance(1)))
	g.m.ID = ev.ID
}

func (g *gen) accept(agent int, gap int64) {
	g.sign(agent, nostr.NewAccept(g.m.ID, g.pubs[g.a], g.clk.advance(gap)))
}

func (g *gen) move(agent, ply int, content string, gap int64) *nostr.Event {
	return g.sign(agent, nostr.NewMove(g.m.ID, ply, content, g.clk.advance(gap)))
}

func (g *gen) result(agent int, r nostr.Result, gap int64) {
	g.sign(agent, nostr.NewResult(g.m.ID, r, g.clk.advance(gap)))
}

// fold is the state of the match so far, as every verifier computes it.
func (g *gen) fold() *match.State {
	s, err := match.Fold(g.m.ID, g.m.Events, g.seen)
	if err != nil {
		g.fail(fmt.Errorf("fold: %w", err))
		return nil
	}
	return s
}

// sync rebuilds the board from the fold's counted moves when they differ.
func (g *gen) sync(s *match.State) {
	if slices.Equal(s.Moves, g.board.Moves()) {
		return
	}
	b, _ := match.NewGame(g.m.Game)
	for _, mv := range s.Moves {
		if _, err := b.Play(mv); err != nil {
			g.fail(fmt.Errorf("replaying %s: %w", mv, err))
			return
		}
	}
	g.board = b
}

// choose picks a legal move in the current position, in the spelling an
// agent might post: mostly canonical, sometimes SAN or an upper-case point.
func (g *gen) choose() (string, bool) {
	switch b := g.board.(type) {
	case *match.Chess:
		capture := 0.5
		if g.cfg.Long {
			capture = 0.2
		}
		uci, san, ok := chessMove(b.G, g.r, capture)
		if ok && g.chance(0.1) {
			return san, true
		}
		return uci, ok
	case *match.Gomoku:
		p, ok := gomokuMove(b.G, g.r)
		if ok && g.chance(0.05) {
			return strings.ToUpper(p), true
		}
		return p, ok
	}
	return "", false
}

// players returns the mover and the waiter at ply.
func (g *gen) players(ply int) (mover, waiter int) {
	if ply%2 == 1 {
		return g.a, g.b
	}
	return g.b, g.a
}

func roleOf(ply int) string {
	if ply%2 == 1 {
		return match.First
	}
	return match.Second
}

func opposite(role string) string {
	if role == match.First {
		return match.Second
	}
	return match.First
}

// open posts a challenge nobody accepts in time: some expire, some get an
// accept after the 7-day window, some hold the challenger's first move.
func (g *gen) open() {
	g.m.Plan = "open"
	invitee := ""
	if g.chance(1.0 / 3) {
		invitee = g.pubs[g.b]
	}
	g.challenge(invitee)
	if g.chance(0.5) {
		if mv, ok := g.choose(); ok {
			g.move(g.a, 1, mv, g.quick())
		}
	}
	created := int64(g.m.Events[0].CreatedAt)
	if created+match.ChallengeExpiry < g.cfg.End {
		g.m.Plan = "expired"
		if g.chance(0.5) {
			g.accept(g.b, match.ChallengeExpiry+g.moveGap())
		}
	}
}

// game is an accepted match played to one of several endings.
func (g *gen) game() {
	g.acceptedChallenge()
	ending := pickEnding(g.r.Float64())
	g.play(g.plyLimit(ending))
	if g.err != nil {
		return
	}
	s := g.fold()
	if s == nil {
		return
	}
	if s.Plies() != g.board.Plies() {
		g.fail(fmt.Errorf("the fold counted %d plies, the generator played %d (ignored: %v)", s.Plies(), g.board.Plies(), s.Ignored))
		return
	}
	g.end(s, ending)
}

// acceptedChallenge posts the challenge and its accept, with the noise
// around them: an accept by someone who may not, a first move held until
// the accept.
func (g *gen) acceptedChallenge() {
	invitee := ""
	if g.chance(0.3) {
		invitee = g.pubs[g.b]
	}
	g.challenge(invitee)
	g.m.Second = g.b
	switch {
	case invitee != "" && g.chance(0.05):
		g.accept(g.other(g.a, g.b), g.quick()) // not the invitee: ignored
	case invitee == "" && g.chance(0.03):
		g.accept(g.a, g.quick()) // the challenger itself: ignored
	}
	if g.chance(0.05) { // held until the accept
		if mv, ok := g.choose(); ok {
			g.move(g.a, 1, mv, g.quick())
			if _, err := g.board.Play(mv); err != nil {
				g.fail(err)
			}
		}
	}
	// Accepted within 30 minutes: the daemon only takes older open ones.
	g.accept(g.b, g.logGap(10, 1200))
}

// plyLimit is how many plies the game may run to before its ending.
func (g *gen) plyLimit(ending string) int {
	switch {
	case ending != "resign" && g.m.Game == nostr.GameGomoku:
		return 4 + g.r.IntN(16)
	case ending != "resign" && g.cfg.Long:
		return 20 + g.r.IntN(200)
	case ending != "resign":
		return 4 + g.r.IntN(90)
	case g.m.Game == nostr.GameChess && g.cfg.Long:
		return 80 + g.r.IntN(260)
	case g.m.Game == nostr.GameChess:
		return 16 + g.r.IntN(170)
	}
	return match.MaxPlies(g.m.Game) // gomoku, resigned: up to a full board
}

// play posts moves until the game ends by rule or reaches limit plies,
// with the mistakes agents make around them.
func (g *gen) play(limit int) {
	for g.board.Plies() < limit && g.err == nil {
		if over, _, _ := g.board.Outcome(); over {
			return
		}
		ply := g.board.Plies() + 1
		mover, waiter := g.players(ply)
		g.noiseBefore(ply, mover, waiter)
		content, ok := g.choose()
		if !ok {
			return
		}
		before := g.board.Clone()
		if _, err := g.board.Play(content); err != nil {
			g.fail(fmt.Errorf("ply %d %q: %w", ply, content, err))
			return
		}
		g.move(mover, ply, content, g.moveGap())
		g.noiseAfter(ply, mover, content, before)
	}
}
