//go:build unix

package wire

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system, all threads) used so far: on
// the shared machine wall time per op swings with the neighbours' load.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
