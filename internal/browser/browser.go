// Package browser drives one headless Chromium over the DevTools protocol
// for tests: the site's layout and accessibility checks, and the checks
// that the demo's and a simulated season's game pages open on the board.
// It imports nothing of the site, so the site's own tests can use it.
package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"vesper/internal/testkit"
)

// Browser is one headless Chromium driven over the DevTools protocol, so a
// test can load many pages in one process, measure their layout with a
// script of its own (the pages themselves carry none) and take
// screenshots at chosen widths.
type Browser struct {
	cmd     *exec.Cmd
	cancel  context.CancelFunc
	conn    *websocket.Conn
	nextID  int
	profile string // Chromium's --user-data-dir, removed by stop
}

// Start launches Chromium with a free debugging port and attaches
// to its first page. The browser is stopped when the test ends.
func Start(t testing.TB, bin string) *Browser {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	// Not t.TempDir: Chromium's helper processes may still write to the
	// profile while the test's cleanup removes it, which fails the test.
	profile, err := os.MkdirTemp("", "vesper-chromium-")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--no-first-run", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--mute-audio", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir="+profile, "about:blank")
	cmd.Dir = profile
	// Its own process group, so that stopping it stops its helpers too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, err := cmd.StderrPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	b := &Browser{cmd: cmd, cancel: cancel, profile: profile}
	t.Cleanup(b.stop)
	// Chromium prints "DevTools listening on ws://127.0.0.1:PORT/..." once
	// the port is open.
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() { // read to the end, so Chromium never blocks on stderr
			if _, ws, ok := strings.Cut(sc.Text(), "DevTools listening on "); ok && !sent {
				found <- ws
				sent = true
			}
		}
		close(found)
	}()
	var wsURL string
	select {
	case ws, ok := <-found:
		if !ok {
			t.Fatal("chromium exited before opening its DevTools port")
		}
		wsURL = ws
	case <-time.After(testkit.Scale(60 * time.Second)):
		t.Fatal("chromium did not open its DevTools port within 60 s")
	}
	host := strings.TrimPrefix(wsURL, "ws://")
	host, _, _ = strings.Cut(host, "/")
	page := b.pageTarget(t, host)
	dctx, dcancel := context.WithTimeout(ctx, testkit.Scale(30*time.Second))
	defer dcancel()
	conn, _, err := websocket.Dial(dctx, page, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(256 << 20) // full-page screenshots, base64
	b.conn = conn
	return b
}

// pageTarget finds the DevTools websocket of the first page, polling
// until Chromium lists it.
func (b *Browser) pageTarget(t testing.TB, host string) string {
	t.Helper()
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + host + "/json/list")
		if err == nil {
			var targets []struct{ Type, WebSocketDebuggerURL string }
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
			for _, tg := range targets {
				if err == nil && tg.Type == "page" && tg.WebSocketDebuggerURL != "" {
					return tg.WebSocketDebuggerURL
				}
			}
		}
		time.Sleep(50 * time.Millisecond) // polling Chromium's target list, not synchronising
	}
	t.Fatal("chromium lists no page target")
	return ""
}

func (b *Browser) stop() {
	if b.conn != nil {
		b.conn.CloseNow()
	}
	b.cancel()
	b.cmd.Wait()
	// A helper killed with the group may still be closing its files: a
	// profile left behind in the temporary directory fails nothing.
	os.RemoveAll(b.profile)
}

// Call sends one DevTools command and waits for its answer, skipping the
// events that arrive meanwhile.
func (b *Browser) Call(t testing.TB, method string, params any, result any) {
	t.Helper()
	b.nextID++
	id := b.nextID
	msg, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Scale(60*time.Second))
	defer cancel()
	if err := b.conn.Write(ctx, websocket.MessageText, msg); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		_, data, err := b.conn.Read(ctx)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(data, &reply); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if reply.ID != id {
			continue
		}
		if reply.Error != nil {
			t.Fatalf("%s: %s", method, reply.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(reply.Result, result); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		}
		return
	}
}

// Eval runs a script in the page and decodes its JSON-able value.
func (b *Browser) Eval(t testing.TB, script string, out any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.Call(t, "Runtime.evaluate", map[string]any{"expression": script, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		t.Fatalf("script failed: %s %s", r.ExceptionDetails.Text, r.ExceptionDetails.Exception.Description)
	}
	if out != nil {
		if err := json.Unmarshal(r.Result.Value, out); err != nil {
			t.Fatalf("script value %s: %v", r.Result.Value, err)
		}
	}
}

// Open sets the window width (a phone below 600 px) and loads url, polling
// until the document has loaded.
func (b *Browser) Open(t testing.TB, url string, width int) {
	t.Helper()
	b.OpenAt(t, url, width, 900)
}

// OpenAt is Open with a window height, for what must be on the first
// screen.
func (b *Browser) OpenAt(t testing.TB, url string, width, height int) {
	t.Helper()
	b.Call(t, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
	// The mark is on the old document's window; the new document has none.
	b.Eval(t, `window.vesperOld = true`, nil)
	b.Call(t, "Page.navigate", map[string]any{"url": url}, nil)
	deadline := time.Now().Add(testkit.Scale(30 * time.Second))
	for {
		var ready bool
		b.Eval(t, `document.readyState === "complete" && !window.vesperOld`, &ready)
		if ready {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not load within 30 s", url)
		}
		time.Sleep(10 * time.Millisecond) // polling the page's load state
	}
}

// Screenshot captures the page from its top, at most maxHeight pixels
// tall, as PNG.
func (b *Browser) Screenshot(t testing.TB, width int, maxHeight float64) []byte {
	t.Helper()
	var height float64
	b.Eval(t, `document.documentElement.scrollHeight`, &height)
	var r struct {
		Data string `json:"data"`
	}
	b.Call(t, "Page.captureScreenshot", map[string]any{
		"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": width, "height": min(height, maxHeight), "scale": 1},
	}, &r)
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil || len(png) < 1000 || !strings.HasPrefix(string(png), "\x89PNG") {
		t.Fatalf("bad screenshot (%d bytes, %v)", len(png), err)
	}
	return png
}
