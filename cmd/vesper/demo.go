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

	"github.com/urfave/cli/v2"

	"vesper/arbiter"
	"vesper/daemon"
	"vesper/match"
	"vesper/nostr"
	"vesper/relayd"
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

// demoLog is quiet unless VESPER_LOG=debug asks for the daemon's log.
func demoLog() *slog.Logger {
	if os.Getenv("VESPER_LOG") == "debug" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return discardLog()
}
