//go:build unix

package batch

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system, all threads) used so far, so
// the benchmarks can report a per-signature cost that does not depend on
// how busy the shared machine's other core is.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
