package seat

import (
	"os"
	"testing"
)

// TestMain gives the tests a cache directory of their own: a seat without
// a LockDir keeps its lock and wake files in the user's cache directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vesper-seat-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
