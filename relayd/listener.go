package relayd

import (
	"net"
	"sync"
	"sync/atomic"
)

// traffic counts the bytes of every connection a relay accepts.
type traffic struct {
	read, written atomic.Int64
}

// trackingListener remembers every connection it accepts until it is closed,
// because http.Server forgets a connection once it is hijacked for a
// websocket, and DropConnections must still reach it.
type trackingListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[*trackedConn]struct{}
	bytes *traffic
}

func newTrackingListener(ln net.Listener, bytes *traffic) *trackingListener {
	return &trackingListener{Listener: ln, conns: make(map[*trackedConn]struct{}), bytes: bytes}
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// dropAll closes every open connection and reports how many there were.
func (l *trackingListener) dropAll() int {
	l.mu.Lock()
	conns := make([]*trackedConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return len(conns)
}

type trackedConn struct {
	net.Conn
	l    *trackingListener
	once sync.Once
}

func (c *trackedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.l.bytes.read.Add(int64(n))
	return n, err
}

func (c *trackedConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	c.l.bytes.written.Add(int64(n))
	return n, err
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}
