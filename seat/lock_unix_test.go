//go:build unix

package seat

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLockFileExcludesOtherOpens is trap 3 across processes: the lock is
// an flock held by its open file, which another open of the file (another
// process's, or another goroutine's) cannot take until it is released.
func TestLockFileExcludesOtherOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k-m.lock")
	probe := func() error {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	unlock, err := lockFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := probe(); !errors.Is(err, syscall.EWOULDBLOCK) {
		t.Fatalf("a second open took the held lock: %v", err)
	}
	unlock()
	if err := probe(); err != nil {
		t.Fatalf("the released lock cannot be taken: %v", err)
	}
}
