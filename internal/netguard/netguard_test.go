package netguard

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"vesper/internal/testkit"
)

// TestCheckIPRanges pins each refused range by an address inside it and
// one just outside, so that a range dropped from the table, or widened
// over public space, fails here.
func TestCheckIPRanges(t *testing.T) {
	tests := []struct {
		ip  string
		rng string // "" when the address is public
	}{
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"::1", "loopback"},
		{"::ffff:127.0.0.1", "loopback"},
		{"10.0.0.1", "private (RFC 1918)"},
		{"10.255.255.255", "private (RFC 1918)"},
		{"172.16.0.1", "private (RFC 1918)"},
		{"172.31.255.255", "private (RFC 1918)"},
		{"172.32.0.1", ""},
		{"172.15.255.255", ""},
		{"192.168.1.1", "private (RFC 1918)"},
		{"::ffff:192.168.1.1", "private (RFC 1918)"},
		{"fc00::1", "private (ULA)"},
		{"fd12:3456::1", "private (ULA)"},
		{"169.254.169.254", "link-local"},
		{"::ffff:169.254.169.254", "link-local"},
		{"fe80::1", "link-local"},
		{"fe80::1%eth0", "link-local"},
		{"febf::1", "link-local"},
		{"fec0::1", "site-local (deprecated)"},
		{"100.64.0.1", "CGNAT shared address space"},
		{"100.127.255.255", "CGNAT shared address space"},
		{"100.128.0.1", ""},
		{"100.63.255.255", ""},
		{"64:ff9b::7f00:1", "NAT64"},
		{"64:ff9b::a9fe:a9fe", "NAT64"},
		{"64:ff9b:1::1", "NAT64 (local-use)"},
		{"0.0.0.0", "unspecified"},
		{"::", "unspecified"},
		{"::ffff:0.0.0.0", "unspecified"},
		{"0.1.2.3", "this-network (0.0.0.0/8)"},
		{"255.255.255.255", "broadcast"},
		{"240.0.0.1", "reserved"},
		{"224.0.0.1", "multicast"},
		{"239.255.255.250", "multicast"},
		{"ff02::1", "multicast"},
		{"::7f00:1", "IPv4-compatible IPv6 (deprecated)"},
		{"192.0.0.8", "IETF protocol assignments"},
		{"198.18.0.1", "benchmarking"},
		{"1.1.1.1", ""},
		{"8.8.8.8", ""},
		{"93.184.216.34", ""},
		{"::ffff:8.8.8.8", ""},
		{"2606:4700:4700::1111", ""},
		{"2001:db8::1", ""}, // documentation space: unroutable, harmless
	}
	for _, tc := range tests {
		t.Run(tc.ip, func(t *testing.T) {
			err := CheckIP(netip.MustParseAddr(tc.ip))
			if tc.rng == "" {
				if err != nil {
					t.Fatalf("CheckIP(%s) = %v, want nil (public)", tc.ip, err)
				}
				return
			}
			var be *BlockedError
			if !errors.As(err, &be) {
				t.Fatalf("CheckIP(%s) = %v, want a *BlockedError", tc.ip, err)
			}
			if be.Range != tc.rng {
				t.Errorf("CheckIP(%s) range = %q, want %q", tc.ip, be.Range, tc.rng)
			}
			if !errors.Is(err, ErrBlocked) {
				t.Errorf("errors.Is(%v, ErrBlocked) = false", err)
			}
			if !strings.Contains(err.Error(), tc.rng) || !strings.Contains(err.Error(), be.Addr.String()) {
				t.Errorf("message %q names neither the range nor the address", err)
			}
		})
	}
}

func TestCheckIPInvalid(t *testing.T) {
	if err := CheckIP(netip.Addr{}); !errors.Is(err, ErrBlocked) {
		t.Fatalf("CheckIP(zero) = %v, want ErrBlocked", err)
	}
}

func TestCheckAddress(t *testing.T) {
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", false},
		{"[::1]:443", false},
		{"[fe80::1%lo]:443", false},
		{"8.8.8.8:443", true},
		{"[2606:4700:4700::1111]:443", true},
		{"localhost:80", false}, // not resolved: the policy cannot judge it
		{"8.8.8.8", false},
	} {
		err := Policy{}.Check(tc.addr)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok=%v", tc.addr, err, tc.ok)
		}
		if err := (Policy{AllowPrivate: true}).Check(tc.addr); err != nil {
			t.Errorf("AllowPrivate Check(%q) = %v, want nil", tc.addr, err)
		}
	}
}

// loopbackServer is a listener on 127.0.0.1 counting the connections it
// accepts: a refused dial must never reach it.
func loopbackServer(t *testing.T) (addr string, accepted chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String(), accepted
}

// TestDialerRefusesLoopback dials a real loopback listener through a real
// net.Dialer: by IP, and by the name "localhost", which the resolver turns
// into a loopback address before Control sees it (the rebinding case).
func TestDialerRefusesLoopback(t *testing.T) {
	addr, accepted := loopbackServer(t)
	_, port, _ := net.SplitHostPort(addr)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	for _, target := range []string{addr, net.JoinHostPort("localhost", port)} {
		d := &net.Dialer{Control: Policy{}.Control}
		c, err := d.DialContext(ctx, "tcp", target)
		if err == nil {
			c.Close()
			t.Fatalf("dial %s with the policy's Control succeeded, want refused", target)
		}
		if !errors.Is(err, ErrBlocked) {
			t.Fatalf("dial %s: %v, want ErrBlocked", target, err)
		}
		guarded := Policy{}.Dialer(nil)
		if c, err := guarded.DialContext(ctx, "tcp", target); err == nil {
			c.Close()
			t.Fatalf("Policy{}.Dialer dial %s succeeded, want refused", target)
		}
	}
	select {
	case <-accepted:
		t.Fatal("a refused dial still reached the listener")
	default:
	}
}

func TestDialerAllowPrivate(t *testing.T) {
	addr, accepted := loopbackServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	d := &net.Dialer{Control: Policy{AllowPrivate: true}.Control}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatalf("AllowPrivate dial %s: %v", addr, err)
	}
	c.Close()
	select {
	case <-accepted:
	case <-ctx.Done():
		t.Fatal("the listener never saw the allowed dial")
	}
}

// TestDialerKeepsBaseControl checks that Dialer chains the base dialer's
// own hook rather than replacing it, and runs it only after the policy.
func TestDialerKeepsBaseControl(t *testing.T) {
	addr, _ := loopbackServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(time.Minute))
	defer cancel()
	var calls int
	base := &net.Dialer{Control: func(string, string, syscall.RawConn) error { calls++; return nil }}
	c, err := Policy{AllowPrivate: true}.Dialer(base).DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if calls != 1 {
		t.Errorf("base Control ran %d times, want 1", calls)
	}
	calls = 0
	if _, err := (Policy{}).Dialer(base).DialContext(ctx, "tcp", addr); !errors.Is(err, ErrBlocked) {
		t.Fatalf("err = %v, want ErrBlocked", err)
	}
	if calls != 0 {
		t.Errorf("base Control ran %d times on a refused dial, want 0", calls)
	}
	if base.ControlContext != nil {
		t.Error("Dialer modified base")
	}
}

// TestTransportRefusesLoopback: an HTTP fetch (a NIP-11 document, a
// websocket handshake) through Transport never reaches a loopback server.
func TestTransportRefusesLoopback(t *testing.T) {
	hit := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hit <- struct{}{} }))
	defer srv.Close()
	client := &http.Client{Transport: Policy{}.Transport()}
	resp, err := client.Get(srv.URL + "/latest/meta-data/")
	if err == nil {
		resp.Body.Close()
		t.Fatal("GET through the guarded transport succeeded")
	}
	if !errors.Is(err, ErrBlocked) {
		t.Fatalf("GET: %v, want ErrBlocked", err)
	}
	select {
	case <-hit:
		t.Fatal("the server saw the refused request")
	default:
	}
	open := &http.Client{Transport: Policy{AllowPrivate: true}.Transport()}
	resp, err = open.Get(srv.URL)
	if err != nil {
		t.Fatalf("AllowPrivate GET: %v", err)
	}
	resp.Body.Close()
}
