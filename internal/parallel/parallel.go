// Package parallel runs independent calls on one goroutine per CPU, the
// pool the site build and the daemon's forecast of it share.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Do calls f(0) to f(n-1) on one goroutine per CPU and returns the first
// error; after an error the calls not yet started are skipped.
func Do(n int, f func(i int) error) error {
	var (
		next    atomic.Int64
		failed  atomic.Bool
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					errOnce.Do(func() { first = err })
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return first
}
