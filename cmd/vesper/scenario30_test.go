package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"
	gn "github.com/nbd-wtf/go-nostr"

	"vesper/internal/benchfx"
	"vesper/internal/hostile"
	"vesper/internal/testkit"
	"vesper/internal/testrelay"
	"vesper/match"
	"vesper/match/chessjs"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
)

// Issue 30's "done when", its combined scenario: every attack of the
// issue at once, at CI size, beside legitimate play, against the real
// `vesper daemon` process on embedded relays. The operator configured
// four relays and did not allow private addresses:
//
//   - pub, our relayd with `vesper relay`'s public limits, where an
//     attacker holds idle connections and floods NEG-OPEN (item 9) and
//     floods challenges past the relay's hourly budget (item 4);
//   - pub2, a stock khatru (its store caps every query at 500), holding
//     junk finished games for the house's records and the analysis
//     queue (items 8, 10), ruling baits (item 8), and players' relay
//     lists that name a loopback service (by address and, where this
//     machine's hostname resolves to loopback, by name), the link-local
//     metadata address, an id-flooding and an endless-pages relay, and
//     200 relays of their own that crowd the slots (items 1, 5, 6, 7, 10);
//   - replay, a relay that re-sends the legitimate match's events again
//     and again (item 2);
//   - flood77, a relay answering NIP-77 with endless new ids (item 1, as a
//     configured relay: its larger budget must still bound the daemon).
//
// Beside them: alice and bob play a legal chess game longer than the
// per-author quota (item 3), 20 of its 80 plies before the daemon starts
// and the rest while it runs; carol challenges dave after the flood spent pub's budget; and
// an opponent's 31-minute-old open challenge waits for the house to take
// it and play it.
//
// Asserted: both matches fold to what `vesper verify` says of their
// events, in the store and in the site's match.json; the house accepts,
// plays and finishes its game, records the listed players' chess games
// (no junk game), rules within its hourly budget, and the analysis grades
// the real game; alice's relay is followed past the crowd; peak RSS
// (VmHWM) stays under 400 MB; no address a stranger named is dialed (the
// loopback "internal service" gets no connection, from the daemon nor
// from `vesper status` given an nevent hinting at it).
func TestIssue30Scenario(t *testing.T) {
	if testing.Short() {
		t.Skip("drives the daemon against every attack of issue 30 for 15-30 s")
	}
	if testkit.RaceDetector {
		// The daemon under test is a separate, uninstrumented binary; what
		// the detector would watch here is the stock khatru relay the test
		// runs in process, and khatru v0.19.1 races with itself
		// (Relay.notifyListeners reads the listener slice that addListener
		// writes, listener.go:139 and :54). The plain step runs this test.
		t.Skip("khatru v0.19.1's own listener race; the daemon is checked as a separate binary")
	}
	start := time.Now()
	s := newScenario(t)
	s.seed()
	d := startDaemon(t, s.data, s.configured(), s.daemonArgs()...)
	t.Cleanup(func() { s.dumpOnFailure() })
	// The play and the attacks below meet a running daemon, as they would
	// a long-running one: its first backfill and sync are done.
	waitFor(t, "the daemon's first backfill and sync", 90*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(s.data, "daemon.log"))
		return strings.Contains(string(b), "relays backfilled and synced")
	})
	s.attackRelay()
	s.floodChallenges()
	c := s.playAfterFlood()
	s.playRest()
	s.playHouse()
	s.seatIgnoresHints()
	s.waitFolded(s.m)
	s.waitFolded(c)
	s.waitDuties(c)
	rss := benchfx.ProcStatusMB(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid), "VmHWM:")
	d.stop(t)
	s.checkNoStrangerDial()
	s.checkAttacksRan()
	s.checkLog()
	t.Logf("issue 30 scenario: %v, daemon peak RSS %.0f MB; pub: %d idle connections refused, %d NEG-OPENs blocked; flood77: %d NIP-77 messages",
		time.Since(start).Round(100*time.Millisecond), rss, s.refused429.Load(), s.negBlocked.Load(), s.flood77.NegMessages())
	if rss < 0 {
		t.Log("no /proc: peak RSS not checked")
	} else if rss > 400 {
		t.Errorf("peak RSS %.0f MB, want under 400 MB", rss)
	}
}

// Sizes of the attacks: each past the lowered bound it attacks, as its
// own regression test has it, small enough for CI.
const (
	s30Quota        = 20  // --quota-match-events
	s30RelayBudget  = 400 // --quota-relay-challenges
	s30Flood        = 600 // junk challenges on pub
	s30JunkGames    = 150 // finished junk chess games (records, analysis)
	s30Baits        = 30  // ruling baits
	s30Crowd        = 100 // accepted junk matches whose players' lists crowd the slots
	s30Rulings      = 5   // --rulings-per-hour
	s30Records      = 5   // --records-per-hour
	s30PliesBefore  = 20  // the legitimate game's plies before the daemon starts
	s30Plies        = 80  // and in all (40 a player, twice the quota)
	s30ReplayCopies = 20  // times the replay relay re-sends each event
)

type scenario struct {
	t                       *testing.T
	now                     int64
	data, site, metrics     string
	houseKey                string
	pub                     *relayd.Relay
	pub2                    *testrelay.KhatruRelay
	replay, flood77         *hostile.Relay
	strangerNeg, endless    *hostile.Relay // named by strangers only
	internal                string         // the loopback "internal service", ws://...
	byName                  string         // ws://HOSTNAME:port of the internal service, HOSTNAME resolving to loopback, or ""
	internalHits            atomic.Int64
	refused429, negBlocked  atomic.Int64
	m                       *testkit.Match // alice and bob's game
	rest                    []*nostr.Event // its events after the daemon starts
	house                   *nostr.Event   // the open challenge the house should take
	opp                     nostr.SecretKey
	alice, bob, carol, dave nostr.SecretKey
}

func newScenario(t *testing.T) *scenario {
	s := &scenario{t: t, now: time.Now().Unix(), data: t.TempDir(), metrics: freeAddr(t),
		alice: testkit.Key("alice"), bob: testkit.Key("bob"), carol: testkit.Key("carol"),
		dave: testkit.Key("dave"), opp: testkit.Key("opponent")}
	s.site = filepath.Join(t.TempDir(), "site")
	s.houseKey = writeKey(t, testkit.Key("house"))
	lim := relayd.PublicLimits()
	// Every client here is 127.0.0.1: the attacker says who it is, so
	// that the per-address cap it fills is its own.
	lim.ClientKey = func(r *http.Request) string {
		if c := r.Header.Get("X-Client"); c != "" {
			return c
		}
		return "honest"
	}
	s.pub = startRelays(t, 1, relayd.Options{Limits: lim})[0]
	s.pub2 = testrelay.Khatru(t, testrelay.KhatruOptions{})
	s.internal = s.internalService()
	s.byName = loopbackName(t, s.internal)
	s.m = longChess(t, s.alice, s.bob, s.now-5000)
	s.rest = s.m.Events[2+s30PliesBefore:]
	s.replay = s.startHostile(hostile.Options{Stored: s.m.Events[:2+s30PliesBefore],
		Drip: repeatEvents(s.m.Events[:2+s30PliesBefore], s30ReplayCopies), DripEvery: 10 * time.Millisecond})
	s.flood77 = s.startHostile(hostile.Options{Neg: hostile.IDFlood(2000)})
	s.strangerNeg = s.startHostile(hostile.Options{Neg: hostile.IDFlood(2000)})
	s.endless = s.startHostile(hostile.Options{EndlessPages: true})
	return s
}

func (s *scenario) startHostile(o hostile.Options) *hostile.Relay {
	h, err := hostile.Start(context.Background(), o)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { h.Close() })
	return h
}

// loopbackName is internal's URL with this machine's hostname for its
// address, when that name resolves to loopback addresses only (as
// /etc/hosts usually has it): a name that passes every check of the URL
// and only the dial-time guard can refuse (item 5). "" otherwise; the
// relay lists then name private address literals, which the daemon
// leaves out before any dial.
func loopbackName(t *testing.T, internal string) string {
	host, err := os.Hostname()
	if err != nil || host == "" || host == "localhost" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupHost(ctx, host)
	if err != nil || len(addrs) == 0 {
		t.Logf("hostname %q does not resolve (%v): no hostname relay in the lists", host, err)
		return ""
	}
	for _, a := range addrs {
		if ip := net.ParseIP(a); ip == nil || !ip.IsLoopback() {
			t.Logf("hostname %q resolves to %v, not only loopback: no hostname relay in the lists", host, addrs)
			return ""
		}
	}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(internal, "ws://"))
	return "ws://" + net.JoinHostPort(host, port)
}

// strangerRelay is the relay URL a stranger's list names for path: the
// internal service by hostname, each path a relay of its own, or a
// private address literal.
func (s *scenario) strangerRelay(path string, i int) string {
	if s.byName != "" {
		return s.byName + path
	}
	return fmt.Sprintf("ws://10.77.%d.%d:7447", i/250, i%250)
}

// internalService is a loopback listener standing for the operator's own
// services (a metadata endpoint, a database): it counts connections.
func (s *scenario) internalService() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.internalHits.Add(1)
			c.Close()
		}
	}()
	return "ws://" + ln.Addr().String()
}

func repeatEvents(evs []*nostr.Event, times int) []*nostr.Event {
	var out []*nostr.Event
	for range times {
		out = append(out, evs...)
	}
	return out
}

// longChess is a legal chess game of s30Plies random plies (seeded) that
// alice then resigns, both players signing the result: longer, for each
// player, than the per-author quota.
func longChess(t *testing.T, a, b nostr.SecretKey, at int64) *testkit.Match {
	t.Helper()
	m := testkit.NewMatch(a, b, "chess", "", at)
	m.Accept(at + 1)
	g := chessjs.NewGame()
	rng := rand.New(rand.NewPCG(30, 30))
	stamp := at + 2
	for ply := 1; ply <= s30Plies; ply++ {
		legal := g.LegalMoves()
		played := false
		for _, j := range rng.Perm(len(legal)) {
			try := g.Clone()
			if _, err := try.Move(legal[j].UCI()); err != nil || try.Outcome().Over {
				continue
			}
			g = try
			k := a
			if ply%2 == 0 {
				k = b
			}
			m.Move(k, ply, legal[j].UCI(), stamp)
			played = true
			break
		}
		if !played {
			t.Fatalf("the random game ended at ply %d", ply)
		}
		stamp += 20
	}
	m.Move(a, s30Plies+1, nostr.ResignContent, stamp)
	st, err := match.Fold(m.ID, m.Events, nil)
	if err != nil || !st.Over {
		t.Fatalf("the long game did not end: %v", err)
	}
	m.Result(a, st.Computed(), stamp+1)
	m.Result(b, st.Computed(), stamp+2)
	return m
}

func (s *scenario) configured() string {
	return strings.Join([]string{s.pub.URL(), s.pub2.URL, s.replay.URL(), s.flood77.URL()}, ",")
}

func (s *scenario) daemonArgs() []string {
	return []string{"--key", s.houseKey, "--think", "50ms", "--max-games", "1",
		"--metrics", s.metrics, "--site-dir", s.site, "--site-every", "2s",
		"--analyse", "builtin", "--analysis-nodes", "2000",
		"--quota-match-events", fmt.Sprint(s30Quota),
		"--quota-relay-challenges", fmt.Sprint(s30RelayBudget),
		"--records-per-hour", fmt.Sprint(s30Records),
		"--rulings-per-hour", fmt.Sprint(s30Rulings)}
}

// seed fills the relays before the daemon starts: the first part of the
// legitimate game on pub (and on the replay relay), everything else on
// pub2.
func (s *scenario) seed() {
	t, ctx := s.t, s.t.Context()
	for _, ev := range s.m.Events[:2+s30PliesBefore] {
		if err := s.pub.Publish(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	evs := []*nostr.Event{s.relayList(s.alice, s.strangerRelay("/alice", 1000)), s.relayList(s.bob, s.strangerRelay("/bob", 1001))}
	for _, k := range []nostr.SecretKey{s.alice, s.bob, s.carol, s.dave} {
		evs = append(evs, testkit.Sign(k, &nostr.Event{Kind: nostr.KindProfile, CreatedAt: nostr.Timestamp(s.now - 9000), Content: `{"name":"bot","bot":true}`}))
	}
	s.house = testkit.Sign(s.opp, nostr.NewChallenge("gomoku", "", s.now-31*60))
	evs = append(evs, s.house)
	evs = append(evs, s.junkGames()...)
	evs = append(evs, s.rulingBaits()...)
	evs = append(evs, s.crowd()...)
	if err := s.pub2.Store(ctx, evs...); err != nil {
		t.Fatal(err)
	}
}

func (s *scenario) relayList(k nostr.SecretKey, write ...string) *nostr.Event {
	ev, err := nostr.NewRelayList(nil, write, s.now-8000)
	if err != nil {
		s.t.Fatal(err)
	}
	return testkit.Sign(k, ev)
}

// junkGames are finished chess games between keys the site does not list
// (no bot profile), backdated three days (item 10: they must not hold the
// real game back in the analysis queue; item 8: they get no record). Each
// junk player has real play, so its relay list ranks among the wanted
// ones: it names the internal service (a cloud metadata path on it), the
// link-local metadata address and two hostile relays (items 1, 5, 10).
func (s *scenario) junkGames() []*nostr.Event {
	mule := testkit.Key("mule")
	named := []string{s.internal + "/latest/meta-data/iam/security-credentials/admin",
		"ws://169.254.169.254/latest/meta-data/", s.strangerNeg.URL(), s.endless.URL()}
	if s.byName != "" {
		named = append(named, s.byName+"/latest/meta-data/iam/")
	}
	var out []*nostr.Event
	for i := range s30JunkGames {
		k := nostr.GenerateKey()
		m := scholarsMateAt(s.t, k, mule, s.now-3*86400+int64(i)*60)
		out = append(out, m.Events...)
		out = append(out, s.relayList(k, named...))
	}
	return out
}

// rulingBaits are abandoned games with an arbitration request two days
// old: each a fallback ruling due from the house (item 8).
func (s *scenario) rulingBaits() []*nostr.Event {
	var out []*nostr.Event
	for i := range s30Baits {
		a, b := nostr.GenerateKey(), nostr.GenerateKey()
		at := s.now - 5*86400 + int64(i)
		m := testkit.NewMatch(a, b, "gomoku", "", at)
		m.Accept(at + 100)
		m.Move(a, 1, "h8", at+200)
		m.Request(a, s.now-2*86400)
		out = append(out, m.Events...)
	}
	return out
}

// crowd are accepted matches of fresh keys, with no move, whose relay
// lists name a relay each (strangerRelay): ten times the slots of NIP-65
// following (item 6), and on the old code a log line per list past the
// cap (item 7).
func (s *scenario) crowd() []*nostr.Event {
	var out []*nostr.Event
	for i := range s30Crowd {
		a, b := nostr.GenerateKey(), nostr.GenerateKey()
		m := testkit.NewMatch(a, b, "chess", "", s.now-2*86400+int64(i))
		m.Accept(s.now - 2*86400 + 100)
		out = append(out, m.Events...)
		out = append(out, s.relayList(a, s.strangerRelay(fmt.Sprintf("/crowd/a%d", i), 2*i)))
		out = append(out, s.relayList(b, s.strangerRelay(fmt.Sprintf("/crowd/b%d", i), 2*i+1)))
	}
	return out
}

// attackRelay is item 9 on pub: an attacker takes its whole per-address
// allowance of idle connections (more are refused with HTTP 429) and
// floods NEG-OPEN on one of them (past its caps they get NEG-ERR
// blocked:). The connections stay open to the end.
func (s *scenario) attackRelay() {
	t := s.t
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var conns []*ws.Conn
	for range relayd.PublicLimits().MaxConnectionsPerIP + 8 {
		c, resp, err := ws.Dial(ctx, s.pub.URL(), &ws.DialOptions{HTTPHeader: http.Header{"X-Client": {"mallory"}}})
		if err != nil {
			if resp != nil && resp.StatusCode == http.StatusTooManyRequests {
				s.refused429.Add(1)
				continue
			}
			t.Fatalf("attacker's dial: %v", err)
		}
		c.SetReadLimit(1 << 24)
		conns = append(conns, c)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.CloseNow()
		}
	})
	if len(conns) == 0 {
		t.Fatal("the attacker got no connection")
	}
	c := conns[0]
	go func() {
		for {
			_, msg, err := c.Read(ctx)
			if err != nil {
				return
			}
			if strings.HasPrefix(string(msg), `["NEG-ERR"`) && strings.Contains(string(msg), "blocked:") {
				s.negBlocked.Add(1)
			}
		}
	}()
	filter := `{"kinds":[4420,4421,4422,4423,4424,4425,4426]}`
	for i := range 50 {
		msg := fmt.Sprintf(`["NEG-OPEN","n%d",%s,"61"]`, i, filter)
		if err := c.Write(ctx, ws.MessageText, []byte(msg)); err != nil {
			t.Fatalf("NEG-OPEN flood: %v", err)
		}
	}
}

// floodChallenges is item 4 on pub: junk open challenges from fresh keys,
// more than the relay's hourly budget, seen by the daemon before carol
// posts hers.
func (s *scenario) floodChallenges() {
	for i := range s30Flood {
		ev := testkit.Sign(nostr.GenerateKey(), nostr.NewChallenge("chess", "", s.now-int64(i%600)))
		if err := s.pub.Publish(s.t.Context(), ev); err != nil {
			s.t.Fatal(err)
		}
	}
	waitFor(s.t, "the flood past pub's budget held", 60*time.Second, func() bool {
		return s.metric(`vesper_challenges_held_total{what="held"}`) >= s30Flood-s30RelayBudget
	})
}

// playAfterFlood: carol's challenge comes after the flood spent pub's
// budget, so it is held; dave's accept must bring it in, and their game
// is folded to its end.
func (s *scenario) playAfterFlood() *testkit.Match {
	at := time.Now().Unix() - 60
	c := scholarsMateAt(s.t, s.carol, s.dave, at)
	held := s.metric(`vesper_challenges_held_total{what="held"}`)
	publishIndependent(s.t, s.pub.URL(), c.Events[0])
	waitFor(s.t, "carol's challenge held", 30*time.Second, func() bool {
		return s.metric(`vesper_challenges_held_total{what="held"}`) > held
	})
	publishIndependent(s.t, s.pub.URL(), c.Events[1:]...)
	return c
}

// playRest publishes the rest of alice and bob's game, on pub only, while
// the replay relay keeps re-sending its first part.
func (s *scenario) playRest() {
	publishIndependent(s.t, s.pub.URL(), s.rest...)
}

// playHouse is the opponent's side of the house's game: it waits for the
// house to accept its open challenge, plays weak moves until the house
// wins, and signs the result.
func (s *scenario) playHouse() {
	t, url, id := s.t, s.pub2.URL, s.house.ID
	waitFor(t, "the house's accept of the open challenge", 90*time.Second, func() bool { return fetchFold(t, url, id).Accepted })
	var st *match.State
	waitFor(t, "the end of the house's game", 90*time.Second, func() bool {
		st = fetchFold(t, url, id)
		if st.Over {
			return true
		}
		if st.ToMove() == match.First {
			post(t, url, s.opp, nostr.NewMove(id, st.Plies()+1, weakGomoku(st), st.Stamp(time.Now().Unix())))
		}
		return false
	})
	if st.Result != match.Second {
		t.Fatalf("the house should win its game: %+v", st.Summary(s.now))
	}
	post(t, url, s.opp, nostr.NewResult(id, st.Computed(), st.Stamp(time.Now().Unix())))
	waitFor(t, "the house's game final", 30*time.Second, func() bool { return fetchFold(t, url, id).Final })
}

// seatIgnoresHints: an agent given a shared nevent whose relay hint is
// the internal service reads the match from its own relays and never
// dials the hint (item 5, the seat's side).
func (s *scenario) seatIgnoresHints() {
	ne := nostr.Nevent(s.m.ID, s.alice.PublicKey(), []string{s.internal + "/latest/meta-data/"})
	r := vesper(s.t, nil, nil, "status", "--json", "--relays", s.pub.URL(), "--timeout", testkit.ScaleFlag(10*time.Second), ne)
	if r.code != 0 || !strings.Contains(r.stdout, s.m.ID) {
		s.t.Fatalf("status of an nevent: exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
}

// waitFolded waits until the daemon's stored summary of m, and the site's
// match.json of it, are what `vesper verify` says of m's own events.
func (s *scenario) waitFolded(m *testkit.Match) {
	t := s.t
	own := filepath.Join(t.TempDir(), "own.json")
	b, err := json.Marshal(map[string]any{"match": m.ID, "events": m.Events})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, b, 0o644); err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(vesper(t, nil, nil, "verify", "--json", own).stdout)
	if !strings.Contains(want, `"final":true`) {
		t.Fatalf("verify of the test's own events: %s", want)
	}
	var got string
	sitePath := filepath.Join(s.site, "m", m.ID+".json")
	waitFor(t, "match "+m.ID[:8]+" folded as verify says, in the store and on the site", 90*time.Second, func() bool {
		got = summaries(t, s.data)[m.ID]
		if got != want {
			return false
		}
		_, err := os.Stat(sitePath)
		return err == nil && strings.TrimSpace(vesper(t, nil, nil, "verify", "--json", sitePath).stdout) == want
	})
}

// waitDuties: the house records both listed players' chess games (and no
// junk game), rules on as many baits as its hourly budget allows, and the
// analysis grades the real game despite 150 older junk games.
func (s *scenario) waitDuties(c *testkit.Match) {
	t := s.t
	waitFor(t, "the game records of the listed players' games", 60*time.Second, func() bool {
		recs := s.fetch(gn.Filter{Kinds: []int{nostr.KindGameRecord}})
		return hasTag(recs, "e", s.m.ID) && hasTag(recs, "e", c.ID)
	})
	waitFor(t, "the rulings of this hour", 60*time.Second, func() bool {
		return len(s.fetch(gn.Filter{Kinds: []int{nostr.KindRuling}})) >= s30Rulings
	})
	waitFor(t, "the analysis of alice and bob's game", 90*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(s.site, "m", s.m.ID+".analysis.json"))
		return err == nil
	})
	if n := len(s.fetch(gn.Filter{Kinds: []int{nostr.KindGameRecord}})); n != 2 {
		t.Errorf("%d game records, want 2 (junk games between unlisted keys get none)", n)
	}
	if n := len(s.fetch(gn.Filter{Kinds: []int{nostr.KindRuling}})); n != s30Rulings {
		t.Errorf("%d rulings, want the hour's budget, %d", n, s30Rulings)
	}
	if got := s.metric(`vesper_duties_held_back{what="rulings"}`); got != s30Baits-s30Rulings {
		t.Errorf("rulings held back: %v, want %d", got, s30Baits-s30Rulings)
	}
}

func hasTag(evs []*nostr.Event, name, value string) bool {
	for _, ev := range evs {
		for _, tag := range ev.Tags {
			if len(tag) >= 2 && tag[0] == name && tag[1] == value {
				return true
			}
		}
	}
	return false
}

// fetch is every event on pub and pub2 that f matches.
func (s *scenario) fetch(f gn.Filter) []*nostr.Event {
	got, err := relay.Fetch(context.Background(), []string{s.pub.URL(), s.pub2.URL}, []gn.Filter{f}, testkit.Scale(10*time.Second))
	if err != nil {
		s.t.Fatal(err)
	}
	var out []*nostr.Event
	for _, r := range got {
		out = append(out, r.Event)
	}
	return out
}

// metric is the value of one sample line of the daemon's /metrics (-1
// when absent or unreadable).
func (s *scenario) metric(sample string) float64 {
	resp, err := http.Get("http://" + s.metrics + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var body strings.Builder
	if _, err := io.Copy(&body, resp.Body); err != nil {
		return -1
	}
	for _, line := range strings.Split(body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err == nil {
				return f
			}
		}
	}
	return -1
}

// checkNoStrangerDial: nothing a stranger named was dialed, neither the
// internal service nor the hostile relays of the junk players' lists.
func (s *scenario) checkNoStrangerDial() {
	t := s.t
	if n := s.internalHits.Load(); n != 0 {
		t.Errorf("the loopback internal service got %d connections", n)
	}
	for name, h := range map[string]*hostile.Relay{"NIP-77 flood": s.strangerNeg, "endless pages": s.endless} {
		if c, i := h.Connections(), h.InfoRequests(); c != 0 || i != 0 {
			t.Errorf("the %s relay strangers named got %d connections and %d NIP-11 requests", name, c, i)
		}
	}
}

// checkAttacksRan: each attack reached its target, so the outcome above
// was not won by an attack that never happened.
func (s *scenario) checkAttacksRan() {
	t := s.t
	if s.refused429.Load() == 0 || s.negBlocked.Load() == 0 {
		t.Errorf("pub's guard: %d connections refused, %d NEG-OPENs blocked; want some of each", s.refused429.Load(), s.negBlocked.Load())
	}
	if s.flood77.NegMessages() == 0 {
		t.Error("the configured NIP-77 flood relay was never reconciled with")
	}
	if n := s.replay.Sent(); n <= int64(2+s30PliesBefore) {
		t.Errorf("the replay relay sent %d events, want copies beyond the %d it holds", n, 2+s30PliesBefore)
	}
}

// checkLog: the crowd of relay lists past the cap logs a line per
// refollow, not per list (item 7).
func (s *scenario) checkLog() {
	b, err := os.ReadFile(filepath.Join(s.data, "daemon.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	if len(b) > 1<<20 {
		s.t.Errorf("daemon.log is %d bytes", len(b))
	}
	if n := strings.Count(string(b), "not following relays past the cap"); n > 20 {
		s.t.Errorf("%d lines about the cap of relays", n)
	}
	if s.byName == "" {
		return
	}
	// The hostname passes every check of the URL: the daemon follows it,
	// and only the guard at dial time, on the resolved address, stops it.
	// Past the cap, the crowd's relays cannot keep alice's out (item 6).
	alice := regexp.MustCompile(`relay=` + regexp.QuoteMeta(s.byName+"/alice") + ` .*netguard: refused to dial`)
	if !alice.Match(b) {
		s.t.Errorf("no dial of alice's relay %s refused by the guard: not followed past the crowd, or not guarded", s.byName+"/alice")
	}

}

func (s *scenario) dumpOnFailure() {
	if !s.t.Failed() {
		return
	}
	if b, err := os.ReadFile(filepath.Join(s.data, "daemon.log")); err == nil {
		if len(b) > 12000 {
			b = b[len(b)-12000:]
		}
		s.t.Logf("daemon.log (tail):\n%s", b)
	}
}
