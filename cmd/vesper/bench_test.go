package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"vesper/internal/benchfx"
	"vesper/relayd"
)

// benchDaemonRSS starts the real daemon on a copy of the store (verify
// only, one empty relay) and reads its resident memory once it has
// re-folded every match and settled.
func benchDaemonRSS(b *testing.B, fx benchfx.Fixture) {
	for range b.N {
		b.StopTimer()
		dbPath := benchfx.CopyStore(b, fx)
		rl, err := relayd.Start(context.Background(), relayd.Options{})
		if err != nil {
			b.Fatal(err)
		}
		logPath := filepath.Join(filepath.Dir(dbPath), "daemon.log")
		logf, err := os.Create(logPath)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command(binPath, "daemon", "--data", filepath.Dir(dbPath), "--relays", rl.URL(),
			"--tick", "1h", "--no-play", "--no-arbiter")
		cmd.Stdout, cmd.Stderr = logf, logf
		start := time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		started := waitLog(logPath, "daemon started", 30*time.Minute)
		ready := time.Since(start)
		time.Sleep(3 * time.Second) // let the relay session and the first tick settle
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		rss, hwm := benchfx.ProcStatusMB(status, "VmRSS:"), benchfx.ProcStatusMB(status, "VmHWM:")
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		logf.Close()
		rl.Close()
		if !started {
			raw, _ := os.ReadFile(logPath)
			b.Fatalf("the daemon did not start:\n%s", raw)
		}
		b.ReportMetric(rss, "RSS-MB")
		b.ReportMetric(hwm, "peak-RSS-MB")
		b.ReportMetric(ready.Seconds(), "start-s")
	}
}

func waitLog(path, what string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if raw, err := os.ReadFile(path); err == nil && strings.Contains(string(raw), what) {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
