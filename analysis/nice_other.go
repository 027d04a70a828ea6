//go:build !linux

package analysis

import (
	"errors"
	"os/exec"
)

// startNiced refuses a nice value off Linux: elsewhere setpriority on this
// process would lower all of it, not just the engine.
func startNiced(cmd *exec.Cmd, nice int) error {
	if nice != 0 {
		return errors.New("nice is supported on Linux only")
	}
	return cmd.Start()
}
