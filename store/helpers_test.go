package store

import (
	"os"
	"path/filepath"
	"testing"

	"vesper/nostr"
)

func TestMain(m *testing.M) {
	// The crash test re-runs this binary as the writer it kills.
	if os.Getenv(crashEnv) != "" {
		os.Exit(crashChild())
	}
	code := m.Run()
	cleanupBenchFixture()
	os.Exit(code)
}

// openTemp opens a fresh store in the test's temporary directory.
func openTemp(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "data", "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// signed signs ev with k and returns it, failing the test on error.
func signed(t testing.TB, k nostr.SecretKey, ev *nostr.Event) *nostr.Event {
	t.Helper()
	if err := k.Sign(ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// ids lists the event ids of stored events, in order.
func ids(evs []StoredEvent) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.Event.ID
	}
	return out
}
