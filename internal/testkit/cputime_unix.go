//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user + system, all threads) the process has
// used so far, for benchmarks that report a cost per op: on a shared
// machine wall time per op swings with the neighbours' load. ok is false
// where the platform cannot tell.
func ProcessCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
