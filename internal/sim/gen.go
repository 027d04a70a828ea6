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
func (g *gen) quick() int64   { return g.logGap(3, 600) }

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

// illegal is a move string the current position refuses.
func (g *gen) illegal() string {
	cands := []string{"--", "Ke9", "e2e5", "O-O-O-O", "Qxx", "nf3", " e4", "E4", "i9"}
	if g.m.Game == nostr.GameGomoku {
		cands = []string{"p16", "h08", "z1", "h 8", "a0", "--"}
		if ms := g.board.Moves(); len(ms) > 0 {
			cands = append(cands, ms[g.r.IntN(len(ms))]) // occupied
		}
	}
	for range 8 {
		s := cands[g.r.IntN(len(cands))]
		if _, err := g.board.Clone().Play(s); err != nil {
			return s
		}
	}
	return "--"
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

// invalid posts a challenge that makes no match, then plays on it anyway.
func (g *gen) invalid() {
	g.m.Plan = "invalid"
	t := g.clk.advance(1)
	var ch *nostr.Event
	switch g.r.IntN(3) {
	case 0:
		ch = nostr.NewChallenge(g.m.Game, g.pubs[g.a], t) // invites its own author
	case 1:
		ch = nostr.NewChallenge("checkers", "", t)
	default:
		ch = nostr.NewChallenge(g.m.Game, "", t)
		ch.Tags = nostr.Tags{{nostr.TopicTag, "other-games"}}
	}
	g.sign(g.a, ch)
	g.m.ID = ch.ID
	g.m.Second = g.b
	g.accept(g.b, g.quick())
	if mv, ok := g.choose(); ok {
		g.move(g.a, 1, mv, g.quick())
	}
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

// end ends a game still running after play (s is its fold) the way
// ending says, or records one that ended by rule, then posts the results.
func (g *gen) end(s *match.State, ending string) {
	if s.Over {
		g.m.Plan = "rule"
		g.results()
		return
	}
	switch ending {
	case "agreement":
		g.agree(s)
		return
	case "timeout":
		g.timeout(s)
		g.future()
		return
	case "abandoned":
		g.m.Plan = "abandoned"
		g.future()
		return
	case "dispute":
		g.dispute(s)
		return
	}
	g.m.Plan = "resign"
	who := g.a
	if g.chance(0.5) {
		who = g.b
	}
	g.move(who, s.Plies()+1, "resign", g.moveGap())
	g.results()
}

func pickEnding(p float64) string {
	switch {
	case p < 0.55:
		return "resign" // or an end by rule, whichever comes first
	case p < 0.67:
		return "agreement"
	case p < 0.85:
		return "timeout"
	case p < 0.94:
		return "abandoned"
	}
	return "dispute"
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

// noiseBefore posts events that must not count, stamped before the move.
func (g *gen) noiseBefore(ply, mover, waiter int) {
	switch p := g.r.Float64(); {
	case p < 0.02:
		g.move(mover, ply, g.illegal(), g.quick())
	case p < 0.03:
		if mv, ok := g.choose(); ok {
			g.move(waiter, ply, mv, g.quick()) // not its turn
		}
	case p < 0.04:
		if mv, ok := g.choose(); ok {
			g.move(mover, ply+2, mv, g.quick()) // wrong ply
		}
	case p < 0.045:
		if mv, ok := g.choose(); ok {
			g.move(g.other(g.a, g.b), ply, mv, g.quick()) // not a player
		}
	case p < 0.047:
		g.sign(g.players2(mover), nostr.NewRequest(g.m.ID, "nothing to rule on yet", g.clk.advance(g.quick())))
	case p < 0.049:
		g.sign(g.other(g.a, g.b), nostr.NewRequest(g.m.ID, "a spectator's opinion", g.clk.advance(g.quick()))) // not a player
	case p < 0.051:
		r := nostr.Result{Result: opposite(roleOf(ply)), Reason: "timeout", Plies: ply - 1, FinalHash: g.board.Hash()}
		g.result(waiter, r, g.quick()) // the clock has not run out
	}
}

// players2 picks either player.
func (g *gen) players2(mover int) int {
	if g.chance(0.5) {
		return mover
	}
	if mover == g.a {
		return g.b
	}
	return g.a
}

// noiseAfter posts a second move for a ply already counted: the same move
// signed again (a retry) or another one (a change of mind).
func (g *gen) noiseAfter(ply, mover int, content string, before match.Game) {
	switch p := g.r.Float64(); {
	case p < 0.01:
		g.move(mover, ply, content, g.quick())
	case p < 0.015:
		saved := g.board
		g.board = before
		if mv, ok := g.choose(); ok {
			g.move(mover, ply, mv, g.quick())
		}
		g.board = saved
	}
}

// results: the players sign the result of a game over by rule or
// resignation, mostly cleanly; otherwise arbitration finishes it.
func (g *gen) results() {
	s := g.fold()
	if s == nil || !s.Over {
		return
	}
	res := s.Computed()
	first, second := g.a, g.b
	if g.chance(0.5) {
		first, second = second, first
	}
	switch p := g.r.Float64(); {
	case p < 0.70:
		g.result(first, res, g.quick())
		g.result(second, res, g.quick())
		if g.chance(0.1) {
			g.result(first, res, g.quick()) // signed again: already final
		}
	case p < 0.80:
		bad := res
		bad.Plies++
		g.result(first, bad, g.quick()) // inconsistent: ignored
		g.result(first, res, g.quick())
		g.result(second, res, g.quick())
	case p < 0.95:
		g.result(first, res, g.quick())
		// The other never signs; after the deadline the signer asks for a
		// ruling, from another agent or, left alone, from the daemon.
		g.sign(first, nostr.NewRequest(g.m.ID, "my opponent does not sign", g.clk.advance(match.MoveClock+g.moveGap())))
		if p < 0.88 {
			g.ruling()
		} else {
			g.m.Plan += "/daemon"
		}
	default:
		g.result(first, res, g.quick())
	}
	if g.chance(0.05) {
		if mv, ok := g.choose(); ok {
			g.move(g.a, s.Plies()+1, mv, g.quick()) // after the end
		}
	}
}

// ruling: an agent rules on a request, sometimes wrongly first.
func (g *gen) ruling() {
	s := g.fold()
	if s == nil {
		return
	}
	arbiter := g.other(g.a, g.b)
	t := g.clk.advance(g.quick())
	want, ok := s.CorrectRuling(t)
	if !ok {
		return // nothing can be correct yet (time compressed after End)
	}
	if g.chance(0.3) {
		wrong := want
		wrong.Result = opposite(want.Result)
		if want.Result == match.Draw {
			wrong.Result = match.First
		}
		g.sign(arbiter, nostr.NewRuling(g.m.ID, wrong, t))
		t = g.clk.advance(g.quick())
	}
	g.sign(arbiter, nostr.NewRuling(g.m.ID, want, t))
}

// agree: the players sign a result of a game in progress.
func (g *gen) agree(s *match.State) {
	g.m.Plan = "agreement"
	r := nostr.Result{Result: match.Draw, Reason: "agreement", Plies: s.Plies(), FinalHash: s.FinalHash()}
	if g.chance(0.3) {
		r.Result = []string{match.First, match.Second}[g.r.IntN(2)]
	}
	first, second := g.a, g.b
	if g.chance(0.5) {
		first, second = second, first
	}
	g.result(first, r, g.moveGap())
	g.result(second, r, g.quick())
}

// timeout: the player to move goes silent; the other claims, or asks for
// a ruling. Some claims come too early, some late moves come after all.
func (g *gen) timeout(s *match.State) {
	silent, other := g.a, g.b
	if s.ToMove() == match.Second {
		silent, other = g.b, g.a
	}
	claim := nostr.Result{Result: opposite(s.ToMove()), Reason: "timeout", Plies: s.Plies(), FinalHash: s.FinalHash()}
	if g.chance(0.2) {
		g.result(other, claim, g.quick()) // premature
	}
	g.clk.advance(match.MoveClock + g.moveGap())
	if g.chance(0.25) {
		if mv, ok := g.choose(); ok {
			g.move(silent, s.Plies()+1, mv, g.quick()) // too late to count
			if s = g.fold(); s == nil {
				return
			}
			g.sync(s)
			claim.Plies, claim.FinalHash = s.Plies(), s.FinalHash()
			claim.Result = opposite(s.ToMove())
			if s.Over {
				return
			}
			if s.ToMove() == match.First {
				silent, other = g.a, g.b
			} else {
				silent, other = g.b, g.a
			}
		}
	}
	switch p := g.r.Float64(); {
	case p < 0.6:
		g.m.Plan = "timeout-claim"
		g.result(other, claim, g.quick())
		if g.chance(0.3) {
			g.result(silent, claim, g.quick()) // conceding, after the result is final
		}
	case p < 0.8:
		g.m.Plan = "timeout-ruling"
		g.sign(other, nostr.NewRequest(g.m.ID, "no move for a day", g.clk.advance(g.quick())))
		g.ruling()
	default:
		g.m.Plan = "timeout-daemon"
		g.sign(other, nostr.NewRequest(g.m.ID, "no move for a day", g.clk.advance(g.quick())))
	}
}

// dispute: each player signs a win for itself; one asks for a ruling,
// which can only come once the pending clock has run out.
func (g *gen) dispute(s *match.State) {
	g.m.Plan = "dispute"
	base := nostr.Result{Reason: "agreement", Plies: s.Plies(), FinalHash: s.FinalHash()}
	ra, rb := base, base
	ra.Result, rb.Result = match.First, match.Second
	g.result(g.a, ra, g.moveGap())
	g.result(g.b, rb, g.quick())
	g.sign(g.players2(g.a), nostr.NewRequest(g.m.ID, "we disagree", g.clk.advance(g.quick())))
	if g.chance(0.7) {
		g.clk.advance(match.MoveClock + g.moveGap())
		g.ruling()
	} else {
		g.m.Plan += "/daemon"
	}
}

// future: a legal move stamped days after End, as from a skewed clock. It
// is the match's last event and never counts (rule 5), since it is
// published around End.
func (g *gen) future() {
	if g.cfg.Live <= 0 || !g.chance(0.15) {
		return
	}
	s := g.fold()
	if s == nil || s.Over || !s.Accepted {
		return
	}
	g.sync(s)
	mv, ok := g.choose()
	if !ok {
		return
	}
	mover, _ := g.players(s.Plies() + 1)
	t := g.cfg.End + 3*86400 + g.r.Int64N(86400)
	ev := g.sign(mover, nostr.NewMove(g.m.ID, s.Plies()+1, mv, t))
	g.m.Future = append(g.m.Future, ev.ID)
	g.seen[ev.ID] = g.cfg.End
}
