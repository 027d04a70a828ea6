//go:build !unix

package relay

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
