package daemon

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"vesper/arbiter"
	"vesper/internal/testkit"
	"vesper/relayd"
	"vesper/store"
)

// TestRunDaemonJoinsItsGoroutines: when runDaemon returns, the relay
// client, the sync worker, the publisher and the site build it started
// have all ended, so the store can be closed under nobody (issue 16's
// "Close waits for every goroutine", for the daemon loop).
func TestRunDaemonJoinsItsGoroutines(t *testing.T) {
	rl, err := relayd.Start(context.Background(), relayd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	st, err := store.Open(filepath.Join(t.TempDir(), "vesper.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := newNode(st, testkit.Key("house"), []string{rl.URL()}, arbiter.DefaultConfig(), discardLog())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- n.runDaemon(ctx, Options{Tick: 50 * time.Millisecond, SiteDir: filepath.Join(t.TempDir(), "site"), SiteEvery: time.Millisecond})
	}()
	// Let it run: connected, synced, building the site over and over.
	waitFor(t, "the relay client to start", 30*time.Second, func() bool { return strings.Contains(stacks(), "(*Client).") })
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testkit.Scale(30 * time.Second)):
		t.Fatal("runDaemon did not return within 30 s of its context's end")
	}
	all := stacks()
	for _, left := range []string{"(*Daemon).publisher", "(*Daemon).syncWorker", "vesper/nostr/relay.(*Client).Run", "(*Daemon).buildSite"} {
		if strings.Contains(all, left) {
			t.Errorf("%s still runs after runDaemon returned", left)
		}
	}
}

func stacks() string {
	buf := make([]byte, 1<<22)
	return string(buf[:runtime.Stack(buf, true)])
}
