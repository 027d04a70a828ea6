//go:build !unix

package batch

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
