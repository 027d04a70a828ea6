package seat

import (
	"context"
	"os"
	"path/filepath"
	"sync"
)

// A key's actions in one match are serialised: two processes with the same
// key (or two parallel MCP tool calls) each read the match, found it their
// move, signed and answered ok, and only one of the moves counted. An
// action takes the (key, match) lock before it reads, and answers from
// what it read under the lock, so the second one sees the first's event.
//
// The lock is two locks: one in this process (goroutines), then a file
// lock (flock on Unix) in LockDir, held by an open file, so that the
// kernel releases it when a process dies holding it.

// inproc holds the in-process locks, by lock name, while anyone holds or
// waits for them.
var inproc = struct {
	sync.Mutex
	m map[string]*inprocLock
}{m: map[string]*inprocLock{}}

type inprocLock struct {
	ch   chan struct{} // holds a token while the lock is held
	refs int
}

// lockInProcess takes the in-process lock of name, or gives up when ctx
// ends.
func lockInProcess(ctx context.Context, name string) (func(), error) {
	inproc.Lock()
	l := inproc.m[name]
	if l == nil {
		l = &inprocLock{ch: make(chan struct{}, 1)}
		inproc.m[name] = l
	}
	l.refs++
	inproc.Unlock()
	drop := func() {
		inproc.Lock()
		if l.refs--; l.refs == 0 {
			delete(inproc.m, name)
		}
		inproc.Unlock()
	}
	select {
	case l.ch <- struct{}{}:
		return func() { <-l.ch; drop() }, nil
	case <-ctx.Done():
		drop()
		return nil, ctx.Err()
	}
}

// lockDir is where the file locks go: LockDir, or vesper/locks in the
// user's cache directory; "" when there is none (then only the
// in-process lock is taken).
func (s *Seat) lockDir() string {
	if s.LockDir != "" {
		return s.LockDir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vesper", "locks")
}

// lock takes the key's lock on match id, in this process and across
// processes. A lock directory that cannot be made or written costs the
// cross-process part only: an action is not refused for it.
func (s *Seat) lock(ctx context.Context, id string) (func(), error) {
	name := s.Me() + "-" + id
	release, err := lockInProcess(ctx, name)
	if err != nil {
		return nil, err
	}
	dir := s.lockDir()
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return release, nil
	}
	unlock, err := lockFile(ctx, filepath.Join(dir, name+".lock"))
	switch {
	case err == nil:
		return func() { unlock(); release() }, nil
	case ctx.Err() != nil:
		release()
		return nil, ctx.Err()
	}
	return release, nil
}
