package analysis

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"vesper/engine/connect4"

	"vesper/match"
)

// Defaults of Options. Stockfish searches each position to DefaultDepth;
// the built-in engine, a few hundred times slower per node of insight, gets
// a node budget instead, which bounds its time per position (about 0.1 s,
// depth 7 or so in a middlegame) and keeps it deterministic just as well.
const (
	DefaultDepth        = 12
	DefaultBuiltinNodes = 200_000
	DefaultHashMB       = 16
	DefaultTimeout      = 2 * time.Minute
)

// ErrNotOver is returned for a game that has not ended: only finished
// games are graded.
var ErrNotOver = errors.New("analysis: the game is not over")

// Options choose the chess engine and how hard it searches. A search stops
// at whichever of Depth and Nodes comes first; both zero means the
// engine's default (DefaultDepth for an external engine,
// DefaultBuiltinNodes for the built-in one). Every limit is a count, never
// a time, so two runs on the same engine build give the same numbers.
type Options struct {
	// Path is an external UCI engine to run (Stockfish; see
	// FindStockfish). Empty runs vesper's own engine in this process.
	Path   string
	Depth  int
	Nodes  int64
	HashMB int // the engine's transposition table; 0 is DefaultHashMB
	// Nice, 0-19, is added to the external engine's niceness, so that
	// analysis yields the CPU to everything else (Linux only). The
	// built-in engine runs in this process and ignores it: bound it with
	// Nodes.
	Nice int
	// Timeout bounds each answer of the engine (a search, the handshake);
	// 0 is DefaultTimeout. It only catches a hung engine: it never
	// shortens a search.
	Timeout time.Duration
	// SolverNodes is the Connect Four solver's node budget per position;
	// 0 is connect4.DefaultBudget (vesper/engine/connect4).
	SolverNodes int64
}

func (o Options) resolve() (Options, error) {
	switch {
	case o.Depth < 0, o.Nodes < 0, o.HashMB < 0, o.Timeout < 0, o.SolverNodes < 0:
		return o, fmt.Errorf("analysis: negative limit in %+v", o)
	case o.Nice < 0 || o.Nice > 19:
		return o, fmt.Errorf("analysis: nice %d is not within 0-19", o.Nice)
	}
	if o.Depth == 0 && o.Nodes == 0 {
		if o.Path != "" {
			o.Depth = DefaultDepth
		} else {
			o.Nodes = DefaultBuiltinNodes
		}
	}
	if o.HashMB == 0 {
		o.HashMB = DefaultHashMB
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.SolverNodes == 0 {
		o.SolverNodes = connect4.DefaultBudget
	}
	if o.Path == "" {
		o.Nice = 0
	}
	return o, nil
}

// Analyser grades finished games one at a time, keeping its chess engine
// running between games (it starts with the first chess game, and again
// after a failure). Calls from several goroutines queue; each can be
// cancelled by its context, which also stops the engine's search.
type Analyser struct {
	opts Options
	slot chan struct{} // held by the game being analysed
	eng  *uciEngine    // guarded by slot

	mu sync.Mutex
	id Engine // the chess engine, complete once it has started
}

// New checks opts and returns an Analyser; no engine runs yet.
func New(opts Options) (*Analyser, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	a := &Analyser{opts: o, slot: make(chan struct{}, 1)}
	a.id = Engine{Name: builtinLabel, Depth: o.Depth, Nodes: o.Nodes, HashMB: o.HashMB}
	if o.Path != "" {
		a.id.Name = filepath.Base(o.Path)
	} else {
		a.id.Version = builtinVersion()
	}
	return a, nil
}

// Analyse grades one game with a new Analyser and closes it.
func Analyse(ctx context.Context, st *match.State, opts Options) (*Game, error) {
	a, err := New(opts)
	if err != nil {
		return nil, err
	}
	g, err := a.Analyse(ctx, st)
	if cerr := a.Close(); err == nil && cerr != nil {
		return nil, cerr
	}
	return g, err
}

// Engine describes the chess engine: its name and version as it announced
// them once it has run, its limits and hash size.
func (a *Analyser) Engine() Engine {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.id
}

// Analyse grades a finished game (st.Over) from a folded state: any state
// that has its Moves (full, Lean or Compact). Chess goes through the
// engine; gomoku needs none. An error means no analysis: an *EngineError
// when the engine failed, ctx.Err() when cancelled, ErrNotOver, or a
// state this package cannot replay.
func (a *Analyser) Analyse(ctx context.Context, st *match.State) (*Game, error) {
	if st == nil {
		return nil, errors.New("analysis: no state")
	}
	if !st.Over {
		return nil, ErrNotOver
	}
	gr, ok := graders[st.Kind]
	if !ok {
		return nil, fmt.Errorf("analysis: no grader for game %q", st.Kind)
	}
	return gr.grade(a, ctx, st)
}

// gradeChess runs the engine over a chess game, one game at a time.
func (a *Analyser) gradeChess(ctx context.Context, st *match.State) (*Game, error) {
	select {
	case a.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-a.slot }()
	g, err := a.chess(ctx, st)
	if err != nil && a.eng != nil {
		// A failed or cancelled search leaves the session in an unknown
		// state (a search may still run); the next game starts afresh.
		a.eng.close(true)
		a.eng = nil
	}
	return g, err
}

// Failed is the analysis.json of a game whose analysis failed with err: no
// moves and no figures, only the reason, so that pages show no analysis
// rather than a partial one.
func (a *Analyser) Failed(st *match.State, err error) *Game {
	g := &Game{Format: FormatVersion, Status: StatusFailed, Moves: []Move{}, Players: []Player{}}
	if err != nil {
		g.Error = err.Error()
	}
	if st != nil {
		g.Match, g.Game = st.Match, st.Kind
		if gr, ok := graders[st.Kind]; ok {
			g.Engine = gr.engine(a)
		}
	}
	return g
}

// Close stops the engine, after the game in progress if any (cancel its
// context to end it sooner).
func (a *Analyser) Close() error {
	a.slot <- struct{}{}
	defer func() { <-a.slot }()
	if a.eng == nil {
		return nil
	}
	err := a.eng.close(false)
	a.eng = nil
	if err != nil && !errors.Is(err, errKilled) {
		return &EngineError{Engine: a.label(), Err: fmt.Errorf("on quit: %w", err)}
	}
	return nil
}

func (a *Analyser) label() string {
	if a.opts.Path != "" {
		return a.opts.Path
	}
	return builtinLabel
}

// engine returns the running engine, starting one if needed.
func (a *Analyser) engine(ctx context.Context) (*uciEngine, error) {
	if a.eng != nil {
		return a.eng, nil
	}
	var e *uciEngine
	if a.opts.Path != "" {
		var err error
		if e, err = startExternal(a.opts.Path, a.opts.Nice, a.opts.Timeout); err != nil {
			return nil, err
		}
	} else {
		e = startBuiltin(a.opts.Timeout)
	}
	if err := e.handshake(ctx); err != nil {
		e.close(true)
		return nil, err
	}
	if err := e.configure(ctx, a.opts.HashMB); err != nil {
		e.close(true)
		return nil, err
	}
	a.mu.Lock()
	if e.name != "" {
		a.id.Name = e.name
	}
	if a.opts.Path != "" {
		a.id.Version = externalVersion(e)
	}
	a.mu.Unlock()
	a.eng = e
	return e, nil
}

// externalVersion is as much of the build as the engine tells: the words
// after its name's first ("15.1" of "Stockfish 15.1"), and the network it
// evaluates with, whose name is its hash ("nn-ad9b42354671.nnue").
func externalVersion(e *uciEngine) string {
	var parts []string
	if _, v, ok := strings.Cut(e.name, " "); ok {
		parts = append(parts, v)
	}
	if net := e.options["evalfile"]; net != "" {
		parts = append(parts, net)
	}
	return strings.Join(parts, " ")
}

// builtinVersion identifies this build of vesper, hence of its engine: the
// VCS revision it was built from when known, else the module version.
func builtinVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return bi.Main.Version
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

// String is the short form the store keeps beside the JSON:
// "Stockfish 15.1 depth 12", "vesper nodes 200000".
func (e Engine) String() string {
	s := e.Name
	if e.Depth > 0 {
		s += fmt.Sprintf(" depth %d", e.Depth)
	}
	if e.Nodes > 0 {
		s += fmt.Sprintf(" nodes %d", e.Nodes)
	}
	return s
}
