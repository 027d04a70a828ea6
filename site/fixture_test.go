package site

import (
	"testing"

	"vesper/analysis"
	"vesper/internal/testkit"
	"vesper/match"
	"vesper/nostr"
)

// t0 is the fixture's first challenge; now is when the fixture site is
// built. Fixed times keep the golden files stable.
const (
	t0  int64 = 1780000000 // 2026-05-28 20:26:40 UTC
	now int64 = t0 + 3*86400
)

var (
	alice  = testkit.Key("alice")
	bob    = testkit.Key("bob")
	carol  = testkit.Key("carol")
	daemon = testkit.Key("daemon")
)

// result is the result JSON a player would sign for the state's position.
func result(s *match.State, who, reason string) nostr.Result {
	return nostr.Result{Result: who, Reason: reason, Plies: s.Plies(), FinalHash: s.FinalHash()}
}

func foldT(t testing.TB, m *testkit.Match) *match.State {
	t.Helper()
	s, err := match.Fold(m.ID, m.Events, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixture is a small world with one match of each kind of page state: over
// and final by each of the three ways, over and not final, in progress,
// open, invited, expired, and a match with ignored events.
type fixture struct {
	in    Input
	ids   map[string]string // name -> match id
	games map[string]*testkit.Match
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{ids: map[string]string{}, games: map[string]*testkit.Match{}}
	seen := map[string]int64{}
	add := func(name string, m *testkit.Match) *match.State {
		f.games[name] = m
		f.ids[name] = m.ID
		for _, ev := range m.Events {
			seen[ev.ID] = int64(ev.CreatedAt) + 2
		}
		return foldT(t, m)
	}
	var states []*match.State

	// Fool's mate, both sign: final by signatures.
	m := testkit.NewMatch(alice, bob, "chess", "", t0)
	m.Accept(t0 + 60)
	last := m.Play([]string{"f2f3", "e7e5", "g2g4", "d8h4"}, t0+120, 60)
	s := foldT(t, m)
	m.Result(alice, result(s, "second", "checkmate"), last+10)
	m.Result(bob, result(s, "second", "checkmate"), last+20)
	states = append(states, add("mate", m))

	// Gomoku five in a row for the first player, then a timeout claim on
	// a second gomoku game.
	m = testkit.NewMatch(bob, alice, "gomoku", "", t0+1000)
	m.Accept(t0 + 1060)
	last = m.Play([]string{"h8", "a1", "i8", "a2", "j8", "a3", "k8", "a4", "l8"}, t0+1100, 30)
	s = foldT(t, m)
	m.Result(bob, result(s, "first", "five_in_a_row"), last+5)
	states = append(states, add("five", m)) // over, one signature: not final

	m = testkit.NewMatch(alice, carol, "gomoku", "", t0+2000)
	m.Accept(t0 + 2060)
	last = m.Play([]string{"h8", "h9", "g7"}, t0+2100, 50)
	s = foldT(t, m)
	m.Result(alice, result(s, "first", "timeout"), last+match.MoveClock+1)
	states = append(states, add("timeout", m))

	// Resignation, disagreement, request, ruling by the daemon.
	m = testkit.NewMatch(carol, daemon, "chess", "", t0+3000)
	m.Accept(t0 + 3000 + 1800)
	last = m.Play([]string{"e2e4", "c7c5", "g1f3"}, t0+5000, 100)
	m.Move(carol, 4, "resign", last+100)
	s = foldT(t, m)
	m.Result(daemon, result(s, "second", "resignation"), last+200)
	m.Result(carol, result(s, "draw", "resignation"), last+300)
	// Carol's draw is inconsistent with the resignation, so it is ignored;
	// the request is valid once the deadline (end + 24 h) has passed.
	m.Request(daemon, last+100+match.MoveClock+1)
	m.Ruling(daemon, result(s, "second", "resignation"), last+100+match.MoveClock+3600)
	states = append(states, add("ruling", m))

	// In progress, with ignored events: wrong ply, wrong player, illegal
	// move, a result from a stranger.
	m = testkit.NewMatch(alice, bob, "chess", "", t0+7000)
	m.Accept(t0 + 7060)
	last = m.Play([]string{"e2e4", "e7e5", "g1f3", "b8c6", "f1b5"}, t0+7100, 300)
	m.Move(bob, 7, "a7a6", last+10)
	m.Move(alice, 6, "a7a6", last+20)
	m.Move(bob, 6, "e5e4", last+30)
	m.Result(carol, nostr.Result{Result: "draw", Reason: "agreement", Plies: 5, FinalHash: "00"}, last+40)
	states = append(states, add("active", m))

	// Open, invited and expired challenges.
	m = testkit.NewMatch(bob, nil2(), "chess", "", now-600)
	states = append(states, add("open", m))
	m = testkit.NewMatch(carol, alice, "gomoku", alice.PublicKey(), now-7200)
	states = append(states, add("invite", m))
	m = testkit.NewMatch(alice, bob, "gomoku", "", now-match.ChallengeExpiry-100)
	states = append(states, add("expired", m))

	f.in = Input{
		States: states, SeenAt: seen, Now: now, Daemon: daemon.PublicKey(),
		Profiles: map[string]Profile{
			alice.PublicKey():  ParseProfile(`{"name":"Alice","about":"plays e4\nand h8","website":"https://alice.example/","bot":true}`),
			bob.PublicKey():    ParseProfile(`{"name":"Bob the Bot","bot":true}`),
			carol.PublicKey():  ParseProfile(`{"display_name":"Carol","bot":false}`),
			daemon.PublicKey(): ParseProfile(`{"name":"vesper","bot":true}`),
		},
	}
	f.in.RatingGames = RatingGames(states)
	// Openings from a table written here, so that no page depends on the
	// shipped one; the house's strength as the daemon says it.
	f.in.Openings, f.in.HouseStrength = testOpenings(t), "2s of search per move"
	// The relays that delivered each challenge, as the store records them:
	// spelled in several ways, with a duplicate, a local relay, things
	// that are no relay URL and more than an nevent names.
	f.in.Relays = map[string][]string{
		f.ids["mate"]: {"wss://relay.two.example/", "ws://127.0.0.1:7777", "wss://RELAY.one.example:443",
			"https://not-a-relay.example", "wss://relay.one.example", "wss://relay.three.example/nostr", "wss://relay.zz.example"},
		f.ids["ruling"]: {"wss://relay.one.example", "ws://127.0.0.1:7777", "javascript:alert(1)"},
		f.ids["open"]:   {"wss://relay.one.example"},
	}
	// The daemon analyses finished games: the mate and the five are
	// graded, the timeout's analysis failed, the ruling is still waiting.
	f.in.Analysing = true
	f.in.Analyses = map[string]*analysis.Game{
		f.ids["mate"]: testAnalysis(foldT(t, f.games["mate"]), cp(25), []testPly{
			{after: cp(-40), best: "e4"}, {after: cp(-45)}, {after: mate(-1), best: "Nc3"}, {after: mated(-1)}}),
		f.ids["five"]: testAnalysis(foldT(t, f.games["five"]), nil, gomokuPlies(9, map[int]testPly{
			6: {tag: analysis.TagBlunder, best: "k8"}, 9: {tag: analysis.TagBest}})),
		f.ids["timeout"]: failedAnalysis(foldT(t, f.games["timeout"])),
	}
	return f
}

// nil2 is the acceptor key of a match that is never accepted.
func nil2() nostr.SecretKey { return testkit.Key("nobody") }
