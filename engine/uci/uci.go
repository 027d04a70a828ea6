// Package uci speaks the Universal Chess Interface for the engine's chess
// search, so it can be driven by standard tools and matched against other
// engines (`vesper engine uci`).
//
// Supported: uci, isready, ucinewgame, setoption name Hash value N,
// position startpos|fen ... [moves ...], go with movetime, depth, nodes,
// wtime, btime, winc, binc, movestogo and infinite, stop, quit, and d
// (prints the FEN as an info string). Searches run one at a time in a
// goroutine so that stop and isready are answered while they think; with
// a node or depth limit the moves are still deterministic.
package uci

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"vesper/engine/board"
	"vesper/engine/search"
)

const (
	defaultHashMB = 16
	maxHashMB     = 1024
	// moveOverhead is kept back from every time budget for I/O.
	moveOverhead = 20 * time.Millisecond
)

// Run reads UCI commands from r and writes replies to w until quit or the
// end of r. At the end of r it lets a running search finish (an infinite
// one is stopped) so that piped input still gets its bestmove. It returns
// the first read or write error.
func Run(r io.Reader, w io.Writer) error {
	s := &session{w: w, hashMB: defaultHashMB}
	s.searcher = search.NewSearcher(s.hashMB)
	s.game, _ = search.NewGame(board.StartFEN, nil)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4<<20)
	for sc.Scan() {
		if quit := s.handle(strings.Fields(sc.Text())); quit {
			s.stopSearch()
			return s.writeErr()
		}
	}
	s.finishSearch()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("uci: reading commands: %w", err)
	}
	return s.writeErr()
}

type session struct {
	mu     sync.Mutex // guards w and werr
	w      io.Writer
	werr   error
	hashMB int

	searcher *search.Searcher
	game     *search.Game

	// The running search, if any.
	done     chan struct{}
	stop     *atomic.Bool
	release  chan struct{} // closed by stop: lets an infinite search report
	infinite bool
}

func (s *session) send(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr == nil {
		_, s.werr = fmt.Fprintf(s.w, format+"\n", a...)
	}
}

func (s *session) writeErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.werr != nil {
		return fmt.Errorf("uci: writing replies: %w", s.werr)
	}
	return nil
}

func (s *session) handle(f []string) (quit bool) {
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "uci":
		s.send("id name vesper")
		s.send("id author the vesper authors")
		s.send("option name Hash type spin default %d min 1 max %d", defaultHashMB, maxHashMB)
		s.send("uciok")
	case "isready":
		s.send("readyok")
	case "ucinewgame":
		s.stopSearch()
		s.searcher.Clear()
		s.game, _ = search.NewGame(board.StartFEN, nil)
	case "setoption":
		s.setOption(f[1:])
	case "position":
		s.position(f[1:])
	case "go":
		s.goSearch(f[1:])
	case "stop":
		s.stopSearch()
	case "ponderhit":
		// Pondering is not supported; a ponder search runs as infinite.
	case "quit":
		return true
	case "d":
		s.send("info string fen %s", s.game.Pos.FEN())
	default:
		s.send("info string unknown command %s", f[0])
	}
	return false
}

func (s *session) setOption(f []string) {
	// setoption name <id...> [value <x...>]
	text := strings.Join(f, " ")
	name, value, _ := strings.Cut(strings.TrimPrefix(text, "name "), " value ")
	if !strings.EqualFold(strings.TrimSpace(name), "hash") {
		s.send("info string unknown option %s", name)
		return
	}
	mb, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || mb < 1 || mb > maxHashMB {
		s.send("info string bad Hash value %q", value)
		return
	}
	s.stopSearch()
	s.hashMB = mb
	s.searcher = search.NewSearcher(mb)
}

func (s *session) position(f []string) {
	var fen string
	switch {
	case len(f) > 0 && f[0] == "startpos":
		fen, f = board.StartFEN, f[1:]
	case len(f) > 0 && f[0] == "fen":
		end := 1
		for end < len(f) && f[end] != "moves" {
			end++
		}
		fen, f = strings.Join(f[1:end], " "), f[end:]
	default:
		s.send("info string position needs startpos or fen")
		return
	}
	var moves []string
	if len(f) > 0 {
		if f[0] != "moves" {
			s.send("info string unexpected %q in position", f[0])
			return
		}
		moves = f[1:]
	}
	g, err := search.NewGame(fen, moves)
	if err != nil {
		s.send("info string %v", err)
		return
	}
	s.game = g
}

// limits turns go's arguments into search limits for the side to move.
func limits(f []string, side board.Color) (lim search.Limits, infinite bool) {
	var clock [2]time.Duration
	var inc [2]time.Duration
	movesToGo := 0
	for i := 0; i < len(f); i++ {
		num := func() int64 {
			if i+1 >= len(f) {
				return 0
			}
			i++
			n, _ := strconv.ParseInt(f[i], 10, 64)
			return max(n, 0)
		}
		ms := func() time.Duration { return time.Duration(num()) * time.Millisecond }
		switch f[i] {
		case "movetime":
			lim.Time = max(ms()-moveOverhead, time.Millisecond)
		case "depth":
			lim.Depth = int(min(num(), 1000))
		case "nodes":
			lim.Nodes = num()
		case "wtime":
			clock[board.White] = ms()
		case "btime":
			clock[board.Black] = ms()
		case "winc":
			inc[board.White] = ms()
		case "binc":
			inc[board.Black] = ms()
		case "movestogo":
			movesToGo = int(num())
		case "infinite", "ponder":
			infinite = true
		}
	}
	if left := clock[side]; left > 0 && lim.Time == 0 {
		parts := 30
		if movesToGo > 0 {
			parts = min(movesToGo+1, 30)
		}
		budget := left/time.Duration(parts) + inc[side]*3/4
		budget = min(budget, left/2, left-moveOverhead)
		lim.Time = max(budget, time.Millisecond)
	}
	if infinite {
		lim = search.Limits{}
	}
	return lim, infinite
}

func (s *session) goSearch(f []string) {
	s.stopSearch()
	lim, infinite := limits(f, s.game.Pos.Side())
	stop := new(atomic.Bool)
	lim.Stop = stop
	done, release := make(chan struct{}), make(chan struct{})
	s.done, s.stop, s.release, s.infinite = done, stop, release, infinite
	// The search gets its own copy of the game: a later position command
	// replaces s.game without touching it.
	g := *s.game
	searcher := s.searcher
	go func() {
		defer close(done)
		res, err := searcher.Search(&g, lim, s.sendInfo)
		if infinite {
			<-release // UCI: an infinite search reports only after stop
		}
		if err != nil {
			s.send("info string %v", err)
			s.send("bestmove 0000")
			return
		}
		s.send("bestmove %s", res.Move.UCI())
	}()
}

func (s *session) sendInfo(in search.Info) {
	score := fmt.Sprintf("cp %d", in.Score)
	if in.Mate != 0 {
		score = fmt.Sprintf("mate %d", in.Mate)
	}
	ms := in.Elapsed.Milliseconds()
	nps := int64(0)
	if in.Elapsed > 0 {
		nps = int64(float64(in.Nodes) / in.Elapsed.Seconds())
	}
	pv := make([]string, len(in.PV))
	for i, m := range in.PV {
		pv[i] = m.UCI()
	}
	s.send("info depth %d seldepth %d score %s nodes %d nps %d time %d pv %s",
		in.Depth, in.SelDepth, score, in.Nodes, nps, ms, strings.Join(pv, " "))
}

// stopSearch ends the running search, if any, and waits for its bestmove.
func (s *session) stopSearch() {
	if s.done == nil {
		return
	}
	s.stop.Store(true)
	close(s.release)
	<-s.done
	s.done = nil
}

// finishSearch lets a bounded search run to its end; an infinite one is stopped.
func (s *session) finishSearch() {
	if s.done == nil {
		return
	}
	if s.infinite {
		s.stopSearch()
		return
	}
	<-s.done
	s.done = nil
}
