//go:build !unix

package seat

import (
	"context"
	"errors"
)

// lockFile has no cross-process lock to take here: the in-process lock is
// all there is.
func lockFile(context.Context, string) (func(), error) {
	return nil, errors.New("seat: no file locks on this system")
}
