package daemon

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"vesper/internal/testkit"
	"vesper/relayd"
	"vesper/store"
)

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startRelays starts n embedded relays on loopback, closed at the end of
// the test.
func startRelays(t *testing.T, n int, opts relayd.Options) []*relayd.Relay {
	t.Helper()
	var out []*relayd.Relay
	for range n {
		r, err := relayd.Start(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		out = append(out, r)
	}
	return out
}

// waitFor polls cond until it holds, failing the test after d, scaled.
var waitFor = testkit.WaitFor

// openStore opens a fresh store in the test's directory, closed at its end.
func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// running opens a Daemon on cfg and runs it until the test ends; Close
// (which waits for every goroutine) runs before the store closes.
func running(t *testing.T, cfg Config) *Daemon {
	t.Helper()
	d, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- d.Run(context.Background()) }()
	t.Cleanup(func() {
		d.Close()
		if err := <-errc; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return d
}

// demoGame is the scholar's mate, seven plies (vesper demo plays it too).
var demoGame = []string{"e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"}
