package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrBlocked matches (errors.Is) every *BlockedError.
var ErrBlocked = errors.New("netguard: address not allowed")

// BlockedError says which address a dial was refused for and the range
// that holds it.
type BlockedError struct {
	Addr   netip.Addr   // as dialed (an IPv4-mapped address stays mapped)
	Range  string       // e.g. "loopback", "private (RFC 1918)"
	Prefix netip.Prefix // the range's prefix, in the family that matched
}

func (e *BlockedError) Error() string {
	where := e.Range
	if e.Prefix.IsValid() {
		where += " (" + e.Prefix.String() + ")"
	}
	return fmt.Sprintf("netguard: refused to dial %s: %s address; only an operator flag (--allow-private-relays) allows it",
		e.Addr, where)
}

// Is makes errors.Is(err, ErrBlocked) true for every BlockedError.
func (e *BlockedError) Is(target error) bool { return target == ErrBlocked }

// Policy is the address policy of one set of dials. The zero Policy
// refuses every non-public address.
type Policy struct {
	// AllowPrivate lets dials reach any address. Only an operator sets it.
	AllowPrivate bool
}

// Check refuses address ("ip:port", as net.Dialer passes it to Control)
// unless the policy allows its IP. An address that is not a literal IP and
// port is refused too: the hook runs after resolution, so anything else is
// a dial the policy cannot judge.
func (p Policy) Check(address string) error {
	if p.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("netguard: refused to dial %q: not an IP address and port", address)
	}
	return CheckIP(ap.Addr())
}

// Control has the signature of net.Dialer.Control: it runs after the name
// is resolved and before the socket connects, once per address tried, so a
// hostname that resolves (or rebinds) to a private address is caught.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	return p.Check(address)
}

// Dialer returns a copy of base (a zero Dialer when nil) whose every
// connection first passes the policy. base's own Control or ControlContext
// still runs, after the policy's check.
func (p Policy) Dialer(base *net.Dialer) *net.Dialer {
	d := &net.Dialer{}
	if base != nil {
		*d = *base
	}
	next := d.ControlContext
	if next == nil && d.Control != nil {
		ctl := d.Control
		next = func(_ context.Context, network, address string, c syscall.RawConn) error {
			return ctl(network, address, c)
		}
	}
	d.Control = nil
	d.ControlContext = func(ctx context.Context, network, address string, c syscall.RawConn) error {
		if err := p.Check(address); err != nil {
			return err
		}
		if next != nil {
			return next(ctx, network, address, c)
		}
		return nil
	}
	return d
}

// Transport returns an http.Transport (for NIP-11 documents and websocket
// handshakes) whose connections pass the policy. It uses no proxy: through
// a proxy the policy would see only the proxy's address, and the proxy
// would reach the stranger's host on vesper's behalf.
func (p Policy) Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = p.Dialer(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}
