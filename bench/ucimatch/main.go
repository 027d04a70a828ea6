// Command ucimatch plays a match between a UCI engine and an opponent (a
// second UCI engine or a built-in mover) and reports the score, the way
// the games ended, illegal moves, time overruns and the engine's speed.
// Every move is adjudicated by vesper/match/chessjs, the rules authority of
// PROTOCOL.md section 4, so a game ends exactly when a verifier would end it.
//
//	go build -o /tmp/vesper ./cmd/vesper
//	go run ./bench/ucimatch -engine "/tmp/vesper engine uci" -opponent stockfish -skill 0 -games 40
//
// The opponent is "random" (a uniformly random legal move), "greedy" (the
// move that wins the most material at one ply, else random; both seeded),
// "stockfish" (found on PATH or at /usr/games/stockfish, as Debian installs
// it) or any engine command line. Games run one after another, openings
// from a fixed list of 20 balanced lines, each played with both colours.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"vesper/match/chessjs"
)

// player is one side of the match.
type player interface {
	name() string
	// newGame is called before every game, with the game's index.
	newGame(game int) error
	// move returns the reply to the position after moves (also given as g,
	// which the player must not change).
	move(moves []string, g *chessjs.Game, movetime, grace time.Duration) reply
	close()
}

// reply is a player's answer to one position.
type reply struct {
	move    string
	elapsed time.Duration // from go sent to bestmove read
	err     error         // crashed or stopped answering
	stopped bool          // answered only after stop
	hasCPU  bool          // cpu is known (engine processes on Linux)
	cpu     time.Duration // CPU time the engine process used for the move

	hasInfo  bool // an info line gave nodes and time
	nodes    int64
	searchMS int64
}

// Reasons a game ends besides chess.js's own.
const (
	endPlyCap      = "ply_cap"
	endIllegalMove = "illegal_move"
	endTimeOverrun = "time_overrun"
	endNoReply     = "no_reply"
)

type config struct {
	movetime time.Duration
	margin   time.Duration // allowed past movetime before a move is an overrun
	grace    time.Duration // past movetime before stop is sent, and again before a hang is declared
	maxPlies int
	forfeit  bool // an overrun loses the game
}

// sideStats are one player's figures over the match.
type sideStats struct {
	moves        int
	think        time.Duration
	thinkMax     time.Duration
	overruns     int
	starved      int // overruns with less CPU used than movetime
	illegal      int
	noncanonical int
	noReply      int
	infoMoves    int
	nodes        int64
	searchMS     int64
}

// gameResult is one game from the engine's side.
type gameResult struct {
	score  float64 // 1, 0.5, 0 for the engine
	reason string
	plies  int
	white  int // index of the player with White: 0 engine, 1 opponent
	pgn    []string
}

type optionList [][2]string

func (o *optionList) String() string { return fmt.Sprint(*o) }

func (o *optionList) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want Name=Value, got %q", s)
	}
	*o = append(*o, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	return nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ucimatch:", err)
		os.Exit(1)
	}
}

// options are the command line's settings.
type options struct {
	engineCmd, opponent      string
	skill                    int
	engineOpts, opponentOpts optionList
	games                    int
	seed                     uint64
	pgnPath                  string
	cfg                      config
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	for i, op := range openings {
		if err := checkOpening(op); err != nil {
			return fmt.Errorf("opening %d: %w", i, err)
		}
	}
	eng, err := newPlayer(o.engineCmd, o.engineOpts, o.seed, -1)
	if err != nil {
		return err
	}
	opp, err := newPlayer(o.opponent, o.opponentOpts, o.seed, o.skill)
	if err != nil {
		return err
	}
	players := [2]player{eng, opp}
	defer eng.close()
	defer opp.close()
	return playMatch(o, players, stdout, stderr)
}

// parseFlags reads and checks the command line.
func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("ucimatch", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.engineCmd, "engine", "", "command line of the UCI engine measured (required)")
	fs.StringVar(&o.opponent, "opponent", "random", `"random", "greedy", "stockfish" or a UCI engine command line`)
	fs.IntVar(&o.skill, "skill", -1, `stockfish "Skill Level" for the opponent, 0-20 (-1: leave unset)`)
	fs.Var(&o.engineOpts, "engine-option", "UCI option Name=Value for the engine (repeatable)")
	fs.Var(&o.opponentOpts, "opponent-option", "UCI option Name=Value for the opponent (repeatable)")
	fs.IntVar(&o.games, "games", 40, "games to play")
	fs.DurationVar(&o.cfg.movetime, "movetime", 100*time.Millisecond, "time per move, sent as go movetime")
	fs.DurationVar(&o.cfg.margin, "margin", 100*time.Millisecond, "a reply later than movetime+margin is a time overrun")
	fs.DurationVar(&o.cfg.grace, "grace", 2*time.Second, "past movetime, send stop; past that again, declare a hang")
	fs.IntVar(&o.cfg.maxPlies, "maxplies", 300, "plies (counted from the start position) after which the game is a draw")
	fs.BoolVar(&o.cfg.forfeit, "forfeit-overrun", true, "a time overrun loses the game (else it is only counted)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the built-in movers")
	fs.StringVar(&o.pgnPath, "pgn", "", "write the games as PGN to this file")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if o.engineCmd == "" {
		return nil, errors.New("-engine is required")
	}
	if o.games < 1 || o.cfg.movetime < time.Millisecond || o.cfg.maxPlies < 1 {
		return nil, errors.New("-games, -movetime and -maxplies must be positive")
	}
	if o.skill >= 0 {
		o.opponentOpts = append(o.opponentOpts, [2]string{"Skill Level", strconv.Itoa(o.skill)})
	}
	return o, nil
}

// playMatch plays the games, says how each ended on stderr, and reports.
func playMatch(o *options, players [2]player, stdout, stderr io.Writer) error {
	var stats [2]sideStats
	var results []gameResult
	var loads []float64
	var incidents []string
	started := time.Now()
	for i := 0; i < o.games; i++ {
		if l, ok := loadAverage(); ok {
			loads = append(loads, l)
		}
		res, inc, err := playGame(i, players, o.cfg, &stats)
		if err != nil {
			return fmt.Errorf("game %d: %w", i+1, err)
		}
		incidents = append(incidents, inc...)
		results = append(results, res)
		colour := "White"
		if res.white != 0 {
			colour = "Black"
		}
		fmt.Fprintf(stderr, "game %d/%d  %-24s %s as %s: %s by %s after %d plies  (%.0fs so far)\n",
			i+1, o.games, openings[(i/2)%len(openings)].name, players[0].name(), colour,
			scoreText(res.score), res.reason, res.plies, time.Since(started).Seconds())
	}
	if l, ok := loadAverage(); ok {
		loads = append(loads, l)
	}
	if o.pgnPath != "" {
		if err := writePGN(o.pgnPath, results, players, o.cfg); err != nil {
			return err
		}
	}
	report(stdout, players, o.cfg, results, stats, loads, incidents, time.Since(started))
	return nil
}

func newPlayer(arg string, opts optionList, seed uint64, skill int) (player, error) {
	switch arg {
	case "random":
		return &builtinMover{label: "random mover", seed: seed}, nil
	case "greedy":
		return &builtinMover{label: "greedy capturer", seed: seed, greedy: true}, nil
	}
	argv := strings.Fields(arg)
	if len(argv) == 0 {
		return nil, errors.New("empty engine command")
	}
	if argv[0] == "stockfish" {
		if _, err := exec.LookPath("stockfish"); err != nil {
			argv[0] = "/usr/games/stockfish" // Debian's place, outside the default PATH
		}
	}
	label := filepath.Base(argv[0])
	if skill >= 0 {
		label += fmt.Sprintf(" (Skill Level %d)", skill)
	}
	e := newUCIEngine(label, argv, opts)
	if err := e.start(); err != nil {
		e.close()
		return nil, err
	}
	return e, nil
}

func checkOpening(o opening) error {
	g := chessjs.NewGame()
	for _, s := range o.moves {
		m, err := g.Move(s)
		if err != nil || m.UCI() != s {
			return fmt.Errorf("%s: %q is not a legal canonical move", o.name, s)
		}
	}
	if g.Outcome().Over {
		return fmt.Errorf("%s: the game is over", o.name)
	}
	return nil
}

// playGame plays game i: opening i/2, the engine White in even games.
// An error is returned only when a player cannot be readied at all.
func playGame(i int, players [2]player, cfg config, stats *[2]sideStats) (gameResult, []string, error) {
	op := openings[(i/2)%len(openings)]
	white := i % 2 // index of the player with White
	for _, p := range players {
		if err := p.newGame(i); err != nil {
			return gameResult{}, nil, err
		}
	}
	g := chessjs.NewGame()
	moves := make([]string, 0, cfg.maxPlies)
	for _, s := range op.moves {
		m, _ := g.Move(s) // checked at start up
		moves = append(moves, m.UCI())
	}
	var incidents []string
	res := gameResult{white: white}
	for {
		if reason, score, over := gameEnd(g, white, cfg); over {
			res.reason, res.score = reason, score
			break
		}
		idx := white
		if g.Turn() == chessjs.Black {
			idx = 1 - white
		}
		r := players[idx].move(moves, g, cfg.movetime, cfg.grace)
		where := fmt.Sprintf("game %d ply %d (%s)", i+1, g.Plies()+1, g.FEN())
		uci, inc, lost := applyReply(g, players[idx].name(), where, r, cfg, &stats[idx])
		incidents = append(incidents, inc...)
		if lost != "" {
			// The game ends against the player at idx.
			res.reason, res.score = lost, float64(idx)
			break
		}
		moves = append(moves, uci)
	}
	res.plies = g.Plies()
	for _, m := range g.History() {
		res.pgn = append(res.pgn, m.SAN)
	}
	return res, incidents, nil
}

// gameEnd says whether the game is over by chess.js's rules or the ply
// cap, why, and the engine's score.
func gameEnd(g *chessjs.Game, white int, cfg config) (reason string, score float64, over bool) {
	out := g.Outcome()
	if out.Over {
		switch {
		case out.Draw:
			return out.Reason, 0.5, true
		case (out.Winner == chessjs.White) == (white == 0):
			return out.Reason, 1, true
		}
		return out.Reason, 0, true
	}
	if g.Plies() >= cfg.maxPlies {
		return endPlyCap, 0.5, true
	}
	return "", 0, false
}

// applyReply counts a player's reply in st, notes what went wrong in it
// (at where), and plays its move on g. lost is why the game ends against
// the player, or "" with uci the move played.
func applyReply(g *chessjs.Game, name, where string, r reply, cfg config, st *sideStats) (uci string, incidents []string, lost string) {
	st.moves++
	st.think += r.elapsed
	st.thinkMax = max(st.thinkMax, r.elapsed)
	if r.hasInfo && r.searchMS > 0 {
		st.infoMoves++
		st.nodes += r.nodes
		st.searchMS += r.searchMS
	}
	if r.err != nil {
		st.noReply++
		return "", []string{fmt.Sprintf("%s: %s: %v", where, name, r.err)}, endNoReply
	}
	if r.elapsed > cfg.movetime+cfg.margin {
		st.overruns++
		cpu := "CPU time unknown"
		if r.hasCPU {
			cpu = fmt.Sprintf("CPU %v", r.cpu)
			if r.cpu <= cfg.movetime {
				st.starved++
			}
		}
		incidents = append(incidents, fmt.Sprintf("%s: %s: overrun, %q after %v (%s)", where, name, r.move, r.elapsed.Round(time.Millisecond), cpu))
		if cfg.forfeit {
			return "", incidents, endTimeOverrun
		}
	}
	m, err := g.Move(r.move)
	if err != nil || r.move == "" {
		st.illegal++
		return "", append(incidents, fmt.Sprintf("%s: %s: illegal move %q", where, name, r.move)), endIllegalMove
	}
	if r.move != m.UCI() {
		// Legal by chess.js's lenient parser, but PROTOCOL.md asks tools
		// to send canonical UCI.
		st.noncanonical++
		incidents = append(incidents, fmt.Sprintf("%s: %s: non-canonical %q for %s", where, name, r.move, m.UCI()))
	}
	return m.UCI(), incidents, ""
}

func scoreText(s float64) string {
	switch s {
	case 1:
		return "win"
	case 0:
		return "loss"
	}
	return "draw"
}

// loadAverage is the one-minute load average, noted because the machine
// is shared and a busy one slows every engine alike.
func loadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, false
	}
	l, err := strconv.ParseFloat(f[0], 64)
	return l, err == nil
}
