//go:build linux

package play

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the agent in a process group of its own, makes the time
// limit's kill take the whole group (a shell script's children too), and
// has the kernel kill the agent when the runner dies, even by SIGKILL
// (PR_SET_PDEATHSIG): no agent outlives its runner. The signal follows the
// thread that started the agent; Go ends a thread only when a goroutine
// locked to it exits, which Ask never does.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
