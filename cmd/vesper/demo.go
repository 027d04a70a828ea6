package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	gn "github.com/nbd-wtf/go-nostr"
	"github.com/urfave/cli/v2"

	"vesper/arbiter"
	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
	"vesper/nostr/relay"
	"vesper/relayd"
	"vesper/reveal"
	"vesper/store"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run a whole game on an embedded relay: daemon, two agents, a final result, the site",
		Description: "Starts an embedded relay on loopback and the daemon, makes two agents with fresh\n" +
			"keys that challenge, accept and play a short game (--game: chess by default) with\n" +
			"signed move events, sign the result, waits until the daemon has stored the final result, builds the\n" +
			"site and prints where the data and the site are. Needs no network and no keys.\n" +
			"With --serve the relay and the daemon keep running after the game (until SIGINT or\n" +
			"SIGTERM), so that an agent (the CLI, or an MCP client through `vesper mcp`) can play\n" +
			"the house: challenge it with --invite set to the house's pubkey and it accepts at once.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Usage: "data directory (default: a new temporary directory)"},
			&cli.StringFlag{Name: "site-dir", Usage: "site directory (default: DATA/site)"},
			&cli.BoolFlag{Name: "serve", Usage: "keep the relay and the daemon running after the game, for agents to play the house"},
			&cli.StringFlag{Name: "listen", Value: "127.0.0.1:0", Usage: "the embedded relay's address (a fixed port is handy with --serve, e.g. 127.0.0.1:7447)"},
			&cli.StringFlag{Name: "game", Value: nostr.GameChess, Usage: "the demo's game: " + match.KindList()},
		},
		Action: func(c *cli.Context) error {
			if err := gameFlags(c, "game"); err != nil {
				return err
			}
			data := c.String("data")
			if data == "" {
				d, err := os.MkdirTemp("", "vesper-demo-")
				if err != nil {
					return fail(exitFailure, "cannot make a data directory: %v", err)
				}
				data = d
			}
			siteDir := c.String("site-dir")
			if siteDir == "" {
				siteDir = filepath.Join(data, "site")
			}
			sig, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runDemo(sig, demoOptions{data: data, siteDir: siteDir, listen: c.String("listen"), serve: c.Bool("serve"), game: c.String("game")})
		},
	}
}

// demoGame is a short real game: the scholar's mate, seven plies.
var demoGame = []string{"e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"}

// demoTalk is each ply's table talk and the reasoning committed with it
// (PROTOCOL.md section 8): the comment is public at once, the reasoning is
// revealed after the final result.
var demoTalk = []struct{ comment, reasoning string }{
	{"Good luck, bob.", "e4: take the centre and open lines for the queen and the f1 bishop."},
	{"Likewise.", "e5: answer in the centre; the e5 pawn blocks the long diagonal of a later Qh5 only partly."},
	{"The bishop eyes f7.", "Bc4: aim at f7, defended only by the king; Qh5 next makes the threat real."},
	{"Developing.", "Nc6: develop and guard e5. I do not see the threat on f7 yet."},
	{"Now the queen joins.", "Qh5: hit f7 twice with queen and bishop and attack e5. If Nf6?? then Qxf7 is mate."},
	{"Time to chase that queen.", "Nf6: develop with tempo on the queen (the plan misses that Qxf7 mates)."},
	{"Checkmate: f7 was weak.", "Qxf7#: the queen takes f7 protected by the bishop; the king cannot take it or escape."},
}

// demoScript is a demo game: its moves and each ply's talk.
type demoScript struct {
	moves []string
	talk  []struct{ comment, reasoning string }
}

// demoScripts are the demo's games by kind; a test fails for a game of
// match.Games without one.
var demoScripts = map[string]demoScript{
	nostr.GameChess: {demoGame, demoTalk},
	// Five in a row for Black (the first player) at ply 9.
	nostr.GameGomoku: {[]string{"h8", "h9", "i8", "i9", "j8", "j9", "k8", "k9", "l8"}, []struct{ comment, reasoning string }{
		{"Good luck, bob.", "h8: the centre point leaves the most room in every direction."},
		{"Likewise.", "h9: stay next to the first stone."},
		{"Two.", "i8: extend along the row."},
		{"Matching you.", "i9: build my own row above."},
		{"Three open.", "j8: three in a row, open at both ends."},
		{"Three as well.", "j9: I keep racing instead of blocking."},
		{"Four open: it cannot be stopped.", "k8: an open four; blocking one end leaves the other."},
		{"Too late.", "k9: four of my own, but it is not my turn to finish."},
		{"Five.", "l8: five in a row."},
	}},
	// Four in a column for Red (the first player) at ply 7.
	nostr.GameConnect4: {[]string{"d", "c", "d", "c", "d", "c", "d"}, []struct{ comment, reasoning string }{
		{"Good luck, bob.", "d: the centre column belongs to the most lines of four."},
		{"Likewise.", "c: next to the centre."},
		{"Two up.", "d: stack the centre."},
		{"Two here too.", "c: stack mine beside it."},
		{"Three: block it.", "d: three in the column; d4 wins next."},
		{"Racing you.", "c: three of my own (a mistake: d had to be blocked)."},
		{"Four in a row.", "d: the fourth disc in column d."},
	}},
}

type demoOptions struct {
	game                  string // a key of demoScripts
	data, siteDir, listen string
	serve                 bool // keep the relay and the daemon running after the game
}

func runDemo(sig context.Context, o demoOptions) error {
	// The game itself has two minutes; with --serve, what follows runs
	// until a signal.
	ctx, cancel := context.WithTimeout(sig, 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(o.data, 0o755); err != nil {
		return fail(exitFailure, "cannot create %s: %v", o.data, err)
	}
	rl, err := relayd.Start(sig, relayd.Options{Listen: o.listen})
	if err != nil {
		return fail(exitFailure, "embedded relay: %v", err)
	}
	defer rl.Close()
	relays := []string{rl.URL()}
	say("embedded relay on %s", rl.URL())

	st, err := openStoreAt(filepath.Join(o.data, "vesper.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	house := nostr.GenerateKey()
	n, note, err := openDemoHouse(st, house, relays)
	if err != nil {
		return err
	}
	dctx, stopDaemon := context.WithCancel(sig)
	defer stopDaemon()
	daemonDone := make(chan error, 1)
	go func() {
		daemonDone <- n.Run(dctx)
	}()
	say("daemon started (pubkey %s)", house.PublicKey())

	d := &demoRun{ctx: ctx, relays: relays, n: n, now: time.Now().Unix() - 60, game: o.game, script: demoScripts[o.game]}
	if d.game == "" {
		d.game, d.script = nostr.GameChess, demoScripts[nostr.GameChess]
	}
	id, err := d.play()
	if err != nil {
		return err
	}
	if err := waitAnalysis(ctx, st, id); err != nil {
		return err
	}
	say("analysed: %s", note)
	// The ladder of models reads the profiles, which the daemon stores on
	// their own path: under load they could land after the site's build.
	if err := waitProfiles(ctx, st, d.alice.PublicKey(), d.bob.PublicKey()); err != nil {
		return err
	}
	if !o.serve {
		stopDaemon()
		if err := <-daemonDone; err != nil {
			return err
		}
	}
	if err := buildDemoSite(st, o, house, id); err != nil {
		return err
	}
	if !o.serve {
		return nil
	}
	return serveDemo(sig, rl.URL(), house, d.game, stopDaemon, daemonDone)
}

// buildDemoSite builds the site and says where the data and the site are.
func buildDemoSite(st *store.Store, o demoOptions, house nostr.SecretKey, id string) error {
	if _, err := daemon.BuildSite(context.Background(), st, o.siteDir, house.PublicKey(), false, time.Now().Unix()); err != nil {
		return fail(exitFailure, "site: %v", err)
	}
	say("")
	say("data:  %s (vesper matches --data %s)", o.data, o.data)
	say("site:  %s", filepath.Join(o.siteDir, "index.html"))
	say("match: %s", filepath.Join(o.siteDir, "m", id+".html"))
	return nil
}

// say prints one line of the demo's narration.
func say(format string, a ...any) { fmt.Printf(format+"\n", a...) }

// openDemoHouse opens the house daemon on the demo's store. It grades the
// finished game as a public daemon does: with Stockfish when installed,
// else with vesper's own engine (note says which).
func openDemoHouse(st *store.Store, house nostr.SecretKey, relays []string) (*daemon.Daemon, string, error) {
	eng, err := engineOptions("", "", 0, 0, 0)
	if err != nil {
		return nil, "", err
	}
	n, err := daemon.Open(daemon.Config{Store: st, Key: house, Relays: relays, Arbiter: arbiter.DefaultConfig(), Log: demoLog(),
		Run:      daemon.Options{Tick: time.Second, SiteEvery: time.Hour},
		Analysis: &daemon.AnalysisOptions{Engine: eng.Options, Share: 1}})
	return n, eng.note, err
}

// serveDemo keeps the relay and the house running until a signal, for
// agents to play the house.
func serveDemo(sig context.Context, url string, house nostr.SecretKey, game string, stopDaemon func(), daemonDone <-chan error) error {
	say("")
	say("serving: relay %s, house %s (%s)", url, house.PublicKey(), nostr.Npub(house.PublicKey()))
	say("play the house: vesper challenge --relays %s --key YOUR.key --game %s --invite %s", url, game, house.PublicKey())
	say("stop with Ctrl-C")
	select {
	case <-sig.Done():
		stopDaemon()
		return <-daemonDone
	case err := <-daemonDone:
		return err
	}
}

// demoRun is the demo's two agents at work: the relays they post to, the
// house that folds their match, and the clock they stamp events with.
type demoRun struct {
	ctx        context.Context // the game's two minutes
	relays     []string
	n          *daemon.Daemon
	alice, bob nostr.SecretKey
	game       string
	script     demoScript
	// now is the last created_at used: each event is stamped a second
	// after the one before, since fold order breaks created_at ties by
	// id, so same-second events could reorder.
	now int64
}

func (d *demoRun) tick() int64 { d.now++; return d.now }

// post signs ev with k and publishes it on the embedded relay.
func (d *demoRun) post(k nostr.SecretKey, ev *nostr.Event) error {
	if err := k.Sign(ev); err != nil {
		return err
	}
	if ok := relay.Accepted(relay.Publish(d.ctx, d.relays, ev, netTimeout)); len(ok) == 0 {
		return fail(exitRelays, "the embedded relay refused event %s", ev.ID)
	}
	return nil
}

// play runs the whole game between two fresh agents: profiles, challenge
// and accept, the moves with their talk, the signed results, and the
// reveals read back and verified. It returns the match id.
func (d *demoRun) play() (string, error) {
	d.alice, d.bob = nostr.GenerateKey(), nostr.GenerateKey()
	if err := d.postProfiles(); err != nil {
		return "", err
	}
	ch := nostr.NewChallenge(d.game, d.bob.PublicKey(), d.tick())
	if err := d.post(d.alice, ch); err != nil {
		return "", err
	}
	id := ch.ID
	say("alice challenged bob: match %s", id)
	if err := d.post(d.bob, nostr.NewAccept(id, d.alice.PublicKey(), d.tick())); err != nil {
		return "", err
	}
	say("bob accepted")
	pending, err := d.playMoves(id)
	if err != nil {
		return "", err
	}
	if err := d.finish(id); err != nil {
		return "", err
	}
	if err := d.reveal(id, pending); err != nil {
		return "", err
	}
	verified, err := demoVerified(d.ctx, d.relays, id)
	if err != nil {
		return "", err
	}
	say("reasoning revealed after the final result: %d of %d entries verified", verified, len(d.script.moves))
	return id, nil
}

func (d *demoRun) postProfiles() error {
	for _, p := range []struct {
		name, model string
		k           nostr.SecretKey
	}{{"alice (demo agent)", "demo-model-a", d.alice}, {"bob (demo agent)", "demo-model-b", d.bob}} {
		prof, err := nostr.NewProfile(nostr.Profile{Name: p.name, About: "a vesper demo agent",
			Agent: nostr.Agent{Model: p.model, Provider: "vesper demo", Harness: "vesper demo", Version: "1"}}, d.tick())
		if err != nil {
			return err
		}
		if err := d.post(p.k, prof); err != nil {
			return err
		}
	}
	return nil
}

// playMoves posts the demo's script with its talk. Each agent keeps its salts and
// texts until the result is final, as the seat's journal does (the demo's
// agents live in this process): pending, by agent pubkey.
func (d *demoRun) playMoves(id string) (pending map[string][]nostr.RevealEntry, err error) {
	pending = map[string][]nostr.RevealEntry{}
	for i, mv := range d.script.moves {
		k := d.alice
		if i%2 == 1 {
			k = d.bob
		}
		salt, talk := nostr.NewSalt(), d.script.talk[i]
		none, out := 0, float64(40+9*i)
		ev := nostr.WithTalk(nostr.NewMove(id, i+1, mv, d.tick()), nostr.Talk{Comment: talk.comment,
			Reasoning: nostr.ReasoningHash(salt, talk.reasoning), Attempts: &none, Usage: &nostr.Usage{OutputTokens: &out}})
		if err := d.post(k, ev); err != nil {
			return nil, err
		}
		pk := k.PublicKey()
		pending[pk] = append(pending[pk], nostr.RevealEntry{Event: ev.ID, Salt: salt, Text: talk.reasoning})
		say("ply %d: %s  %q", i+1, mv, talk.comment)
	}
	return pending, nil
}

// finish waits for the house to see the game over, has both agents sign
// the result, and waits for it to be final.
func (d *demoRun) finish(id string) error {
	s, err := waitState(d.ctx, d.n, id, func(s *match.State) bool { return s.Plies() == len(d.script.moves) && s.Over })
	if err != nil {
		return err
	}
	say("game over: %s wins by %s", s.Result, s.Reason)
	for _, k := range []nostr.SecretKey{d.alice, d.bob} {
		if err := d.post(k, nostr.NewResult(id, s.Computed(), d.tick())); err != nil {
			return err
		}
	}
	s, err = waitState(d.ctx, d.n, id, func(s *match.State) bool { return s.Final })
	if err != nil {
		return err
	}
	say("result final by %s (event %s)", s.FinalBy, s.FinalEvent)
	return nil
}

// reveal posts each agent's reasoning, all stamped at the same second.
func (d *demoRun) reveal(id string, pending map[string][]nostr.RevealEntry) error {
	at := d.tick()
	for _, k := range []nostr.SecretKey{d.alice, d.bob} {
		evs, err := nostr.NewReveal(id, pending[k.PublicKey()], at)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			if err := d.post(k, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// demoVerified reads the match and its reveals back from the relay, as
// any verifier would, and counts the reasoning that verifies.
func demoVerified(ctx context.Context, relays []string, id string) (int, error) {
	got, err := relay.Fetch(ctx, relays, append(relay.MatchFilters(id),
		gn.Filter{Kinds: []int{nostr.KindReveal}, Tags: gn.TagMap{nostr.MatchTag: {id}}}), netTimeout)
	if err != nil {
		return 0, fail(exitRelays, "reading the reveals back: %v", err)
	}
	var evs []*nostr.Event
	for _, r := range got {
		evs = append(evs, r.Event)
	}
	st, err := match.Fold(id, evs, nil)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range reveal.Check(st, evs).Entries {
		if e.Status == reveal.Verified {
			n++
		}
	}
	return n, nil
}

// waitAnalysis polls the store until the match's analysis is stored.
func waitAnalysis(ctx context.Context, st *store.Store, id string) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if _, ok, err := st.Analysis(ctx, id); err == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fail(exitFailure, "timed out waiting for the analysis of match %s", id)
		case <-t.C:
		}
	}
}

// waitProfiles polls the store until it holds every pubkey's profile.
func waitProfiles(ctx context.Context, st *store.Store, pubkeys ...string) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for _, pk := range pubkeys {
		for {
			if _, ok, err := st.Profile(ctx, pk); err == nil && ok {
				break
			}
			select {
			case <-ctx.Done():
				return fail(exitFailure, "timed out waiting for the profile of %s", pk)
			case <-t.C:
			}
		}
	}
	return nil
}

// waitState polls the daemon's state of a match until cond holds.
func waitState(ctx context.Context, n *daemon.Daemon, id string, cond func(*match.State) bool) (*match.State, error) {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		// A final match lives in the store only: Load reads it there.
		if s, err := n.Load(ctx, id); err == nil && s != nil && cond(s) {
			return s, nil
		}
		select {
		case <-ctx.Done():
			return nil, fail(exitFailure, "timed out waiting for the daemon to fold match %s", id)
		case <-t.C:
		}
	}
}

// demoLog is quiet unless VESPER_LOG=debug asks for the daemon's log.
func demoLog() *slog.Logger {
	if os.Getenv("VESPER_LOG") == "debug" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return discardLog()
}
