package relay

import (
	"context"
	"sync"
)

// Cursors stores, per relay, the created_at up to which the client has
// every event (store.Store implements it). Backfill starts from the cursor
// minus Config.SafetyMargin.
type Cursors interface {
	Cursor(ctx context.Context, relay string) (int64, error)
	SetCursor(ctx context.Context, relay string, createdAt int64) error
}

// MemCursors keeps cursors in memory, for tests and one-shot tools.
type MemCursors struct {
	mu sync.Mutex
	m  map[string]int64
}

// NewMemCursors returns empty in-memory cursors.
func NewMemCursors() *MemCursors { return &MemCursors{m: make(map[string]int64)} }

func (m *MemCursors) Cursor(_ context.Context, relay string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[relay], nil
}

func (m *MemCursors) SetCursor(_ context.Context, relay string, createdAt int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.m[relay] = createdAt
	return nil
}
