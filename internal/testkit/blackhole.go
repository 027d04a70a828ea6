package testkit

import (
	"net"
	"sync"
	"testing"
)

// BlackHole starts a listener on loopback that accepts TCP connections and
// never answers, and returns its ws:// URL: a relay that is up but useless,
// the worst kind for a client's timeouts. It closes at the test's end.
func BlackHole(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "ws://" + ln.Addr().String()
}

// DeadRelay returns a ws:// URL on loopback that nothing listens on: a
// relay that is down, which refuses every connection at once.
func DeadRelay(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return "ws://" + ln.Addr().String()
}
