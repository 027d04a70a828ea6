//go:build !unix

package wire

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
