package sim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// daemonProc is the daemon under test, as a child process that can be
// killed with SIGKILL and started again on the same data.
type daemonProc struct {
	bin, log string
	args     []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	done   chan struct{}
	err    error
	killed bool
	starts int
}

func (d *daemonProc) start() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	logf, err := os.OpenFile(d.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	fmt.Fprintf(logf, "---- sim: start %d\n", d.starts+1)
	cmd := exec.Command(d.bin, d.args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting the daemon: %w", err)
	}
	d.cmd, d.done, d.killed = cmd, make(chan struct{}), false
	d.starts++
	done := d.done
	go func() {
		err := cmd.Wait()
		logf.Close()
		d.mu.Lock()
		d.err = err
		d.mu.Unlock()
		close(done)
	}()
	return nil
}

func (d *daemonProc) running() bool {
	d.mu.Lock()
	done := d.done
	d.mu.Unlock()
	if done == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
		return true
	}
}

// exitedOnItsOwn describes an exit nobody asked for, once.
func (d *daemonProc) exitedOnItsOwn() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.done == nil || d.killed {
		return ""
	}
	select {
	case <-d.done:
		d.killed = true // reported
		if d.err == nil {
			return "status 0"
		}
		return d.err.Error()
	default:
		return ""
	}
}

func (d *daemonProc) signal(sig syscall.Signal) chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cmd == nil {
		return nil
	}
	d.killed = true
	_ = d.cmd.Process.Signal(sig)
	return d.done
}

func (d *daemonProc) kill() {
	if done := d.signal(syscall.SIGKILL); done != nil {
		<-done
	}
}

// term stops the daemon as an operator would, and expects a clean exit.
func (d *daemonProc) term(timeout time.Duration) error {
	done := d.signal(syscall.SIGTERM)
	if done == nil {
		return nil
	}
	select {
	case <-done:
	case <-time.After(timeout):
		d.kill()
		return errors.New("the daemon did not stop within " + timeout.String() + " of SIGTERM")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return fmt.Errorf("the daemon's exit after SIGTERM: %v", d.err)
	}
	return nil
}
