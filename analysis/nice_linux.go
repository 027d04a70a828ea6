package analysis

import (
	"fmt"
	"os/exec"
	"runtime"
	"syscall"
)

// startNiced starts cmd with nice more niceness than this process. On
// Linux the nice value belongs to a thread and a child inherits the one of
// the thread that forked it, so the start happens on a thread of its own,
// lowered first; that thread is never unlocked, so it ends with its
// goroutine and nothing else of ours ever runs at the lowered priority.
// The engine's own threads, created later, inherit it from its main one.
func startNiced(cmd *exec.Cmd, nice int) error {
	if nice == 0 {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tid := syscall.Gettid()
		raw, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
		if err != nil {
			errc <- fmt.Errorf("nice: %w", err)
			return
		}
		// The raw system call answers 20 - nice.
		target := min(19, 20-raw+nice)
		if err := syscall.Setpriority(syscall.PRIO_PROCESS, tid, target); err != nil {
			errc <- fmt.Errorf("nice %d: %w", target, err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
