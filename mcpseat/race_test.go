//go:build race

package mcpseat_test

// raceBuild makes `go test -race` build the server under the race detector
// too, so the processes the tests talk to are checked as well.
const raceBuild = true
