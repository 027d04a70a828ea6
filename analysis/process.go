package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"vesper/engine/uci"
)

// How long an engine may take to leave after "quit", and to let go of its
// output after a kill, before it is killed or abandoned.
const (
	quitGrace = 2 * time.Second
	killGrace = 5 * time.Second
)

// startExternal runs the UCI engine at path as a child process, in a
// process group of its own so that a kill takes any children with it, at
// nice more niceness than ours, with args.
func startExternal(path string, nice int, timeout time.Duration, args ...string) (*uciEngine, error) {
	cmd := exec.Command(path, args...)
	errTail := &tail{}
	cmd.Stderr = errTail
	// Wait must not hang on a grandchild that kept stderr open.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, &EngineError{Engine: path, Err: err}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, &EngineError{Engine: path, Err: err}
	}
	if err := startNiced(cmd, nice); err != nil {
		return nil, &EngineError{Engine: path, Err: err}
	}
	e := newUCI(path, stdin, timeout)
	e.stderr, e.pid = errTail, cmd.Process.Pid
	go e.read(stdout)
	e.end = endExternal(e, cmd, stdin, stdout)
	return e, nil
}

// endExternal is how the engine process ends: "quit" (unless kill), then
// a kill of its group if its output does not end within the grace, and
// the exit status, errKilled when our kill ended it.
func endExternal(e *uciEngine, cmd *exec.Cmd, stdin io.WriteCloser, stdout io.ReadCloser) func(kill bool) error {
	return func(kill bool) error {
		if !kill {
			_, _ = io.WriteString(stdin, "quit\n")
		}
		stdin.Close()
		killed := false
		grace := quitGrace
		if kill {
			grace = 0
		}
		if !waitFor(e.readDone, grace) {
			killGroup(cmd)
			killed = true
			if !waitFor(e.readDone, killGrace) {
				// Something outside the group holds the pipe: stop reading.
				if f, ok := stdout.(*os.File); ok {
					f.Close()
				}
				<-e.readDone
			}
		}
		// The output has ended, so Wait no longer races the reader.
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		var err error
		select {
		case err = <-waited:
		case <-time.After(quitGrace):
			killGroup(cmd)
			killed = true
			err = <-waited
		}
		// An engine that ended by itself before our kill reached it keeps
		// its own exit status: that is the news.
		if killed && cmd.ProcessState != nil && cmd.ProcessState.ExitCode() == -1 {
			return errKilled
		}
		return err
	}
}

// waitFor reports whether ch closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// builtinLabel names vesper's own engine in errors.
const builtinLabel = "vesper"

// errEnded is what writes to the built-in engine return once it returned.
var errEnded = errors.New("the engine has returned")

// startBuiltin runs vesper's own engine in this process, through the same
// UCI loop as `vesper engine uci`, over a pair of pipes.
func startBuiltin(timeout time.Duration) *uciEngine {
	cmdR, cmdW := io.Pipe()
	outR, outW := io.Pipe()
	ran := make(chan error, 1)
	go func() {
		err := runBuiltin(cmdR, outW)
		outW.CloseWithError(err) // nil: a plain end of output
		cmdR.CloseWithError(errEnded)
		ran <- err
	}()
	e := newUCI(builtinLabel, cmdW, timeout)
	go e.read(outR)
	e.end = func(bool) error {
		// The reader drops lines from now on, so the engine is never stuck
		// writing, and stop ends a search within its next node check:
		// quitting is prompt, killed or not.
		_, _ = io.WriteString(cmdW, "stop\nquit\n")
		cmdW.Close()
		err := <-ran
		<-e.readDone
		return err
	}
	return e
}

// runBuiltin is uci.Run with a panic turned into an error, so that an
// engine bug fails one analysis instead of the daemon. (A panic in the
// search goroutine uci.Run starts cannot be caught here.)
func runBuiltin(r io.Reader, w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return uci.Run(r, w)
}
