//go:build cgo

package testrelay

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/eventstore/lmdb"
)

// lmdbStore is eventstore's lmdb backend in a test directory. Its
// MaxLimit, when set, caps NIP-77 sessions as well as REQs (lmdb.Init
// copies it to MaxLimitNegentropy), as on a relay whose operator set one.
//
// The store lives in memory (/dev/shm) where there is one: lmdb syncs to
// disk at every write, which made storing a 40-match season take 12 s.
func lmdbStore(t testing.TB, maxLimit int) eventstore.Store {
	dir := t.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "vesper-lmdb-"); err == nil {
		dir = shm
		t.Cleanup(func() { os.RemoveAll(shm) })
	}
	return &lmdb.LMDBBackend{Path: filepath.Join(dir, "lmdb"), MaxLimit: maxLimit, MapSize: 1 << 30}
}
