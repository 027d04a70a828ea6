//go:build !cgo

package testrelay

import (
	"testing"

	"github.com/fiatjaf/eventstore"
)

// lmdbStore skips the test: eventstore's lmdb backend is a cgo binding.
func lmdbStore(t testing.TB, _ int) eventstore.Store {
	t.Skip("testrelay: the lmdb store needs cgo (CGO_ENABLED=0)")
	return nil
}
