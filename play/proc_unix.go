//go:build unix && !linux

package play

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the agent in a process group of its own, and makes the
// time limit's kill take the whole group (a shell script's children too).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
