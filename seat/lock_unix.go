//go:build unix

package seat

import (
	"context"
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on path (made if missing) and returns
// its release. flock locks belong to the open file, so each call opens the
// file anew and two goroutines of one process exclude each other too.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() {
		for {
			// The runtime's signals interrupt a blocked flock.
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
			if !errors.Is(err, syscall.EINTR) {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, err
		}
		// Closing the file releases the lock.
		return func() { f.Close() }, nil
	case <-ctx.Done():
		// The flock may still succeed: release it then.
		go func() { <-done; f.Close() }()
		return nil, ctx.Err()
	}
}
