package seat

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"vesper/internal/testkit"
	"vesper/nostr"
)

// countingListener is a loopback port standing for a service of the
// agent's own machine; it counts the connections it gets.
func countingListener(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var hits atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	return "ws://" + ln.Addr().String() + "/latest/meta-data/", &hits
}

// TestSeatHintsGuarded (issue 30, item 5): a shared nevent whose relay
// hint is a loopback service makes a read, a wait and an accept dial
// nothing there, unless the operator allowed private addresses; the
// seat's own relays, loopback as they are, are dialed as written.
func TestSeatHintsGuarded(t *testing.T) {
	ctx := context.Background()
	home := startRelay(t)
	internal, hits := countingListener(t)
	a := &Seat{Relays: []string{home.URL()}, Key: testkit.Key("seat-a"), Timeout: testkit.Scale(5 * time.Second)}
	ch, err := a.Challenge(ctx, "chess", "")
	if err != nil {
		t.Fatal(err)
	}
	ne := nostr.Nevent(ch.Match, a.Key.PublicKey(), []string{internal})
	b := &Seat{Relays: []string{home.URL()}, Key: testkit.Key("seat-b"), Timeout: testkit.Scale(10 * time.Second)}
	if _, err := b.Read(ctx, ne); err != nil {
		t.Fatalf("read: %v", err)
	}
	// Nothing wakes a stranger: the wait runs out, after the relay's answer
	// (without one it would fail); 3 s leaves room for it on a busy machine.
	if _, err := b.Wait(ctx, ne, WaitOptions{Timeout: testkit.Scale(3 * time.Second)}); err != nil {
		t.Fatalf("wait: %v", err)
	}
	if _, err := b.Accept(ctx, ne); err != nil {
		t.Fatalf("accept: %v", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the loopback service a hint named got %d connections", n)
	}
	b.AllowPrivateRelays = true
	b.Read(ctx, ne)
	if hits.Load() == 0 {
		t.Error("with private addresses allowed, the hint was not dialed")
	}
}
