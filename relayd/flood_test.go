package relayd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ws "github.com/coder/websocket"
)

// TestFloodFigures measures `vesper relay` under a flood of small REQs
// (issue 38 item 2), for docs/PERFORMANCE.md; it asserts nothing about
// time or memory and runs only when asked:
//
//	go build -o /tmp/vesper ./cmd/vesper
//	VESPER_FLOOD_BIN=/tmp/vesper VESPER_FLOOD_CONNS=1 go test ./relayd -run TestFloodFigures -v
//
// VESPER_FLOOD_CONNS connections from one address (127.0.0.1) each write
// REQs with a new subscription id as fast as the relay reads them, never
// reading an answer, and dial again when closed, for VESPER_FLOOD_SECONDS
// (15). Meanwhile an honest client on its own connection sends a REQ
// every 250 ms and waits for its EOSE. The relay runs with its default
// limits; the test reports its peak resident memory (sampled every 100 ms,
// and the kernel's VmHWM) and the honest client's latencies.
func TestFloodFigures(t *testing.T) {
	bin := os.Getenv("VESPER_FLOOD_BIN")
	if bin == "" {
		t.Skip("set VESPER_FLOOD_BIN to a vesper binary to measure")
	}
	conns, _ := strconv.Atoi(os.Getenv("VESPER_FLOOD_CONNS"))
	conns = max(conns, 1)
	secs, _ := strconv.Atoi(os.Getenv("VESPER_FLOOD_SECONDS"))
	if secs <= 0 {
		secs = 15
	}
	cmd := exec.Command(bin, "relay", "--listen", "127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	var url string
	for _, f := range strings.Fields(line) {
		if strings.HasPrefix(f, "ws://") {
			url = f
		}
	}
	if url == "" {
		t.Fatalf("no URL in %q", line)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs)*time.Second)
	defer cancel()

	var peak atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if kb := procStatus(cmd.Process.Pid, "VmRSS"); kb > peak.Load() {
				peak.Store(kb)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	var sent, dials atomic.Int64
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := 0
			for ctx.Err() == nil {
				c, _, err := ws.Dial(ctx, url, nil)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				dials.Add(1)
				for ctx.Err() == nil {
					n++
					msg := fmt.Sprintf(`["REQ","f%d-%d",{"kinds":[4422],"limit":1}]`, i, n)
					if c.Write(ctx, ws.MessageText, []byte(msg)) != nil {
						break
					}
					sent.Add(1)
				}
				c.CloseNow()
			}
		}()
	}
	var lat []time.Duration
	var failed int
	honest, _, err := ws.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; ctx.Err() == nil; n++ {
		time.Sleep(250 * time.Millisecond)
		start := time.Now()
		id := fmt.Sprintf("h%d", n)
		if err := honestREQ(ctx, honest, id); err != nil {
			if ctx.Err() == nil {
				failed++
				honest.CloseNow()
				if honest, _, err = ws.Dial(ctx, url, nil); err != nil {
					continue
				}
			}
			continue
		}
		lat = append(lat, time.Since(start))
	}
	honest.CloseNow()
	wg.Wait()
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	t.Logf("%d flooding connection(s) for %d s: %d REQs written, %d dials; relay peak RSS %.0f MB (sampled), VmHWM %.0f MB",
		conns, secs, sent.Load(), dials.Load(), float64(peak.Load())/1024, float64(procStatus(cmd.Process.Pid, "VmHWM"))/1024)
	t.Logf("honest client: %d REQs answered, %d failed; p50 %v p99 %v max %v", len(lat), failed, pct(0.5), pct(0.99), pct(1))
}

func honestREQ(ctx context.Context, c *ws.Conn, id string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, ws.MessageText, []byte(`["REQ","`+id+`",{"kinds":[4422],"limit":1}]`)); err != nil {
		return err
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return err
		}
		if strings.HasPrefix(string(b), `["EOSE","`+id+`"`) || strings.HasPrefix(string(b), `["CLOSED","`+id+`"`) {
			return c.Write(ctx, ws.MessageText, []byte(`["CLOSE","`+id+`"]`))
		}
	}
}

// procStatus reads a field of /proc/PID/status in kB (0 when unknown).
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb
		}
	}
	return 0
}
