//go:build !race

package testkit

// RaceDetector says the binary was built with -race.
const RaceDetector = false
