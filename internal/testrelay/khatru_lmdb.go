//go:build cgo

package testrelay

import (
	"path/filepath"
	"testing"

	"github.com/fiatjaf/eventstore"
	"github.com/fiatjaf/eventstore/lmdb"
)

// lmdbStore is eventstore's lmdb backend in a test directory. Its
// MaxLimit, when set, caps NIP-77 sessions as well as REQs (lmdb.Init
// copies it to MaxLimitNegentropy), as on a relay whose operator set one.
func lmdbStore(t testing.TB, maxLimit int) eventstore.Store {
	return &lmdb.LMDBBackend{Path: filepath.Join(t.TempDir(), "lmdb"), MaxLimit: maxLimit, MapSize: 1 << 30}
}
