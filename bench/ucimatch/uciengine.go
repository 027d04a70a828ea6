package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"vesper/match/chessjs"
)

// uciEngine is an engine process spoken to over UCI. It is restarted after
// a game in which it crashed or stopped answering, so that one bad game
// does not decide the rest.
type uciEngine struct {
	label   string
	argv    []string
	options [][2]string // setoption name/value pairs, sent in order
	// ready bounds the handshake and the isready round trips.
	ready time.Duration

	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan string // stdout, line by line; closed at EOF
	dead  bool
}

func newUCIEngine(label string, argv []string, options [][2]string) *uciEngine {
	return &uciEngine{label: label, argv: argv, options: options, ready: 10 * time.Second}
}

func (e *uciEngine) name() string { return e.label }

func (e *uciEngine) start() error {
	cmd := exec.Command(e.argv[0], e.argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: starting %q: %w", e.label, strings.Join(e.argv, " "), err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	e.cmd, e.stdin, e.lines, e.dead = cmd, stdin, lines, false
	if err := e.send("uci"); err != nil {
		return err
	}
	if _, err := e.waitFor("uciok", e.ready); err != nil {
		return err
	}
	for _, o := range e.options {
		if err := e.send("setoption name " + o[0] + " value " + o[1]); err != nil {
			return err
		}
	}
	return e.sync()
}

func (e *uciEngine) send(line string) error {
	if _, err := io.WriteString(e.stdin, line+"\n"); err != nil {
		return fmt.Errorf("%s: writing %q: %w", e.label, line, err)
	}
	return nil
}

var errNoReply = errors.New("no reply")

// waitFor reads lines until one whose first word is word, and returns it.
func (e *uciEngine) waitFor(word string, d time.Duration) (string, error) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case line, ok := <-e.lines:
			if !ok {
				return "", fmt.Errorf("%s: exited while waiting for %s", e.label, word)
			}
			if f := strings.Fields(line); len(f) > 0 && f[0] == word {
				return line, nil
			}
		case <-timer.C:
			return "", fmt.Errorf("%s: %w to %s within %v", e.label, errNoReply, word, d)
		}
	}
}

func (e *uciEngine) sync() error {
	if err := e.send("isready"); err != nil {
		return err
	}
	_, err := e.waitFor("readyok", e.ready)
	return err
}

func (e *uciEngine) newGame(int) error {
	if e.cmd == nil || e.dead {
		e.close()
		if err := e.start(); err != nil {
			return err
		}
	}
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	return e.sync()
}

// move asks for a move after the moves played from the start position and
// times the round trip from writing go to reading bestmove: that is what
// a player on the network would see. A search that is not over by grace
// past its budget is told to stop; one that still does not answer is a
// hang, and the process is replaced before the next game.
func (e *uciEngine) move(moves []string, _ *chessjs.Game, movetime, grace time.Duration) (r reply) {
	pos := "position startpos"
	if len(moves) > 0 {
		pos += " moves " + strings.Join(moves, " ")
	}
	if err := e.send(pos); err != nil {
		e.dead = true
		return reply{err: err}
	}
	if err := e.send("go movetime " + strconv.FormatInt(movetime.Milliseconds(), 10)); err != nil {
		e.dead = true
		return reply{err: err}
	}
	start := time.Now()
	cpu0, cpuOK := e.cpuTime()
	defer func() {
		if cpu1, ok := e.cpuTime(); ok && cpuOK {
			r.cpu, r.hasCPU = cpu1-cpu0, true
		}
	}()
	timer := time.NewTimer(movetime + grace)
	defer timer.Stop()
	stopped := false
	for {
		select {
		case line, ok := <-e.lines:
			if !ok {
				e.dead = true
				r.elapsed = time.Since(start)
				r.err = fmt.Errorf("%s: exited during its move", e.label)
				return r
			}
			f := strings.Fields(line)
			if len(f) == 0 {
				continue
			}
			switch f[0] {
			case "info":
				parseInfo(f[1:], &r)
			case "bestmove":
				r.elapsed = time.Since(start)
				if len(f) > 1 {
					r.move = f[1]
				}
				r.stopped = stopped
				return r
			}
		case <-timer.C:
			if stopped {
				e.dead = true
				r.elapsed = time.Since(start)
				r.err = fmt.Errorf("%s: no bestmove within %v of stop", e.label, grace)
				return r
			}
			stopped = true
			_ = e.send("stop")
			timer.Reset(grace)
		}
	}
}

// cpuTime is the CPU time the process has used, from /proc (Linux), in
// clock ticks of 10 ms. Set beside the wall time of a move, it tells an
// engine that overran its budget from one the shared machine did not run.
func (e *uciEngine) cpuTime() (time.Duration, bool) {
	if e.cmd == nil || e.cmd.Process == nil {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(e.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces; the fields after
	// it start with the state (field 3): utime and stime are fields 14, 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const tick = 10 * time.Millisecond // USER_HZ is 100 on Linux
	return time.Duration(utime+stime) * tick, true
}

// parseInfo keeps the node count and search time of the latest info line
// that has both, the basis of the nodes-per-second figure.
func parseInfo(f []string, r *reply) {
	var nodes, ms int64 = -1, -1
scan:
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "nodes":
			nodes, _ = strconv.ParseInt(f[i+1], 10, 64)
			i++
		case "time":
			ms, _ = strconv.ParseInt(f[i+1], 10, 64)
			i++
		case "pv", "string":
			break scan // the rest are moves or free text
		}
	}
	if nodes >= 0 && ms >= 0 {
		r.nodes, r.searchMS, r.hasInfo = nodes, ms, true
	}
}

func (e *uciEngine) close() {
	if e.cmd == nil {
		return
	}
	_ = e.send("quit")
	_ = e.stdin.Close()
	done := make(chan struct{})
	go func() {
		for range e.lines {
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = e.cmd.Process.Kill()
		<-done
	}
	_ = e.cmd.Wait()
	e.cmd = nil
}
