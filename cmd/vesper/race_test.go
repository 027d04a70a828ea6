//go:build race

package main

// raceDetector says the test binary runs under the race detector.
const raceDetector = true
