package sim

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Fault is what a Proxy does to the connections it carries. The zero
// value passes everything through untouched.
type Fault struct {
	// Drop closes each connection after a random lifetime with this mean
	// (exponentially distributed), now and then in the middle of a frame.
	// Zero never drops.
	Drop time.Duration
	// DelayMin and DelayMax delay every chunk of bytes, in both directions,
	// by a random time between them, keeping their order (a slow link, so
	// pongs wait behind events too).
	DelayMin, DelayMax time.Duration
	// Duplicate sends every EVENT message from the relay twice.
	Duplicate bool
	// Garbage is the chance that a message from the relay is followed by a
	// garbage frame (see garbage).
	Garbage float64
}

// ProxyStats counts what a proxy did.
type ProxyStats struct {
	Conns, Drops, Duplicated, Garbage, Delayed int64
}

// Proxy is a websocket proxy on loopback in front of one relay, injecting
// a Fault. HTTP requests that are not websocket upgrades (NIP-11) are
// forwarded as they are.
type Proxy struct {
	upstream string // host:port
	ln       net.Listener
	srv      *http.Server
	rev      *httputil.ReverseProxy

	mu    sync.Mutex
	fault Fault
	rng   *rand.Rand
	conns map[net.Conn]struct{}

	conns0, drops, duplicated, garbage, delayed atomic.Int64
}

// NewProxy listens on a free loopback port and forwards to upstream
// (host:port of a relay).
func NewProxy(upstream string, f Fault, seed uint64) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sim: proxy: %w", err)
	}
	p := &Proxy{upstream: upstream, ln: ln, fault: f, rng: rand.New(rand.NewPCG(seed, 0x9e3779b9)),
		conns: map[net.Conn]struct{}{}}
	p.rev = httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: upstream})
	quiet := log.New(io.Discard, "", 0)
	p.rev.ErrorLog = quiet
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 5 * time.Second, ErrorLog: quiet}
	go p.srv.Serve(ln)
	return p, nil
}

// URL is the proxy's websocket address.
func (p *Proxy) URL() string { return "ws://" + p.ln.Addr().String() }

// SetFault changes the fault for new connections and for data still to
// come on open ones.
func (p *Proxy) SetFault(f Fault) {
	p.mu.Lock()
	p.fault = f
	p.mu.Unlock()
}

func (p *Proxy) currentFault() Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fault
}

// Stats reports the counts so far.
func (p *Proxy) Stats() ProxyStats {
	return ProxyStats{Conns: p.conns0.Load(), Drops: p.drops.Load(), Duplicated: p.duplicated.Load(),
		Garbage: p.garbage.Load(), Delayed: p.delayed.Load()}
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	return err
}

// rand helpers share one generator under the lock: handlers run
// concurrently.
func (p *Proxy) float() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rng.Float64()
}

func (p *Proxy) between(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return lo + time.Duration(p.rng.Int64N(int64(hi-lo)))
}

func (p *Proxy) track(c net.Conn, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		p.conns[c] = struct{}{}
	} else {
		delete(p.conns, c)
	}
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		p.rev.ServeHTTP(w, r)
		return
	}
	up, err := net.DialTimeout("tcp", p.upstream, 5*time.Second)
	if err != nil {
		http.Error(w, "relay unreachable", http.StatusBadGateway)
		return
	}
	// No permessage-deflate: duplicating a compressed message would
	// corrupt the receiver's shared compression window.
	var req bytes.Buffer
	fmt.Fprintf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\n", r.URL.RequestURI(), p.upstream)
	for k, vs := range r.Header {
		if strings.EqualFold(k, "Sec-WebSocket-Extensions") {
			continue
		}
		for _, v := range vs {
			fmt.Fprintf(&req, "%s: %s\r\n", k, v)
		}
	}
	req.WriteString("\r\n")
	if _, err := up.Write(req.Bytes()); err != nil {
		up.Close()
		http.Error(w, "relay unreachable", http.StatusBadGateway)
		return
	}
	ur := bufio.NewReader(up)
	resp, err := http.ReadResponse(ur, r)
	if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
		up.Close()
		http.Error(w, "relay refused the upgrade", http.StatusBadGateway)
		return
	}
	cc, cbuf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		up.Close()
		return
	}
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 101 Switching Protocols\r\n")
	for k, vs := range resp.Header {
		for _, v := range vs {
			fmt.Fprintf(&head, "%s: %s\r\n", k, v)
		}
	}
	head.WriteString("\r\n")
	if _, err := cc.Write(head.Bytes()); err != nil {
		cc.Close()
		up.Close()
		return
	}
	p.conns0.Add(1)
	p.pump(cc, cbuf.Reader, up, ur)
}

// pump carries one websocket both ways until either side ends or the
// fault drops it.
func (p *Proxy) pump(client net.Conn, fromClient *bufio.Reader, up net.Conn, fromUp *bufio.Reader) {
	p.track(client, true)
	p.track(up, true)
	defer p.track(client, false)
	defer p.track(up, false)
	var once sync.Once
	done := make(chan struct{})
	end := func() {
		once.Do(func() {
			close(done)
			client.Close()
			up.Close()
		})
	}
	f := p.currentFault()
	toClient := p.newSink(client, done, end)
	toUp := p.newSink(up, done, end)
	if f.Drop > 0 {
		life := time.Duration(float64(f.Drop) * expSample(p.float()))
		t := time.AfterFunc(life, func() {
			if p.currentFault().Drop == 0 {
				return
			}
			p.drops.Add(1)
			if p.float() < 0.3 {
				// A frame cut short: header says 100 bytes, 10 arrive.
				_, _ = client.Write(append([]byte{0x81, 100}, "cut short"...))
			}
			end()
		})
		defer t.Stop()
	}
	go func() {
		defer end()
		copyChunks(fromClient, toUp)
	}()
	func() {
		defer end()
		if f.Duplicate || f.Garbage > 0 {
			p.copyFrames(fromUp, toClient)
		} else {
			copyChunks(fromUp, toClient)
		}
	}()
	<-done
}

// expSample turns a uniform sample into an exponential one with mean 1.
func expSample(u float64) float64 {
	if u <= 0 {
		u = 1e-9
	}
	return -math.Log(u)
}

func copyChunks(r io.Reader, s *sink) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 && !s.write(buf[:n]) {
			return
		}
		if err != nil {
			return
		}
	}
}

// copyFrames forwards the relay's frames message by message, duplicating
// EVENT messages and adding garbage frames between messages.
func (p *Proxy) copyFrames(r *bufio.Reader, s *sink) {
	var (
		msg       [][]byte // the frames of the message being read
		text      bytes.Buffer
		lastSub   string
		lastEvent []byte
	)
	for {
		fr, err := readFrame(r)
		if err != nil {
			return
		}
		if fr.op >= opClose { // control frames may come between fragments
			if !s.write(fr.raw) {
				return
			}
			continue
		}
		msg = append(msg, fr.raw)
		text.Write(fr.payload)
		if !fr.fin {
			continue
		}
		f := p.currentFault()
		copies := 1
		if sub, ev, ok := eventMessage(text.Bytes()); ok {
			lastSub, lastEvent = sub, ev
			if f.Duplicate {
				copies = 2
				p.duplicated.Add(1)
			}
		}
		for range copies {
			for _, raw := range msg {
				if !s.write(raw) {
					return
				}
			}
		}
		msg = msg[:0]
		text.Reset()
		if f.Garbage > 0 && p.float() < f.Garbage {
			p.mu.Lock()
			g := garbage(p.rng, lastSub, lastEvent)
			p.mu.Unlock()
			p.garbage.Add(1)
			if !s.write(textFrame(g)) {
				return
			}
		}
	}
}

// eventMessage recognises ["EVENT", sub, event].
func eventMessage(b []byte) (sub string, event []byte, ok bool) {
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte(`["EVENT"`)) {
		return "", nil, false
	}
	var arr []json.RawMessage
	if json.Unmarshal(b, &arr) != nil || len(arr) != 3 || json.Unmarshal(arr[1], &sub) != nil {
		return "", nil, false
	}
	return sub, bytes.Clone(arr[2]), true
}

// sink writes to one side of a connection, after the fault's delay when
// it has one. Chunks keep their order: each is due no earlier than the
// one before it.
type sink struct {
	w    io.Writer
	p    *Proxy
	end  func()
	ch   chan chunk
	last time.Time
	quit <-chan struct{} // the connection ended
}

type chunk struct {
	b  []byte
	at time.Time
}

func (p *Proxy) newSink(w io.Writer, quit <-chan struct{}, end func()) *sink {
	s := &sink{w: w, p: p, end: end, ch: make(chan chunk, 1024), quit: quit}
	go s.run()
	return s
}

func (s *sink) write(b []byte) bool {
	f := s.p.currentFault()
	at := time.Now()
	if f.DelayMax > 0 {
		at = at.Add(s.p.between(f.DelayMin, f.DelayMax))
		s.p.delayed.Add(1)
	}
	if at.Before(s.last) {
		at = s.last
	}
	s.last = at
	select {
	case s.ch <- chunk{b: bytes.Clone(b), at: at}:
		return true
	case <-s.quit:
		return false
	}
}

func (s *sink) run() {
	for {
		select {
		case <-s.quit:
			return
		case c := <-s.ch:
			if d := time.Until(c.at); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-s.quit:
					t.Stop()
					return
				}
			}
			if _, err := s.w.Write(c.b); err != nil {
				s.end()
				return
			}
		}
	}
}
