package testkit

import (
	"os"
	"strconv"
	"time"
)

// ScaleEnv names the one factor every test timeout is multiplied by. A
// loaded host (a busy CI machine, a laptop building something else) sets it
// higher instead of each test guessing its own margin; .ci/run sets it.
const ScaleEnv = "VESPER_TEST_SCALE"

// Scale returns d multiplied by the factor in $VESPER_TEST_SCALE (1 when
// unset or not a number of at least 1). Use it for every timeout a test
// gives the code under test, and for every deadline a test waits on.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * scaleFactor())
}

func scaleFactor() float64 {
	f, err := strconv.ParseFloat(os.Getenv(ScaleEnv), 64)
	if err != nil || f < 1 {
		return 1
	}
	return f
}

// ScaleFlag is Scale(d) spelled as a command-line duration ("1.5s"), for
// the timeouts a test passes to vesper's commands.
func ScaleFlag(d time.Duration) string {
	return Scale(d).String()
}
