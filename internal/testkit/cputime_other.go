//go:build !unix

package testkit

import "time"

// ProcessCPU cannot tell the process's CPU time on this platform.
func ProcessCPU() (d time.Duration, ok bool) { return 0, false }
