package sim

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"vesper/internal/pause"
	"vesper/nostr"
	"vesper/relayd"
)

// RelaySpec is one relay of a fleet and how it misbehaves.
type RelaySpec struct {
	Name string
	// Fault, when not the zero value, puts a Proxy in front of the relay:
	// the verifier connects through it.
	Fault Fault
	// DownEvery and DownFor take the relay down (it stops listening and
	// drops every connection) for DownFor, every DownEvery, while
	// RunFaults runs. Events published to it meanwhile wait, as an agent
	// retrying would, and are stored when it is back.
	DownEvery, DownFor time.Duration
	// MaxLimit caps each query's results (relayd.Options.MaxLimit), so that
	// clients must page.
	MaxLimit int
}

// DefaultFleet is one relay of each kind of trouble: a clean one, one
// that drops connections at random, one that delays delivery by seconds,
// one that sends every event twice with garbage frames between, and one
// that goes down for a while and comes back.
func DefaultFleet() []RelaySpec {
	return []RelaySpec{
		{Name: "clean"},
		{Name: "drop", Fault: Fault{Drop: 4 * time.Second}},
		{Name: "delay", Fault: Fault{DelayMin: 500 * time.Millisecond, DelayMax: 3 * time.Second}},
		{Name: "dup", Fault: Fault{Duplicate: true, Garbage: 0.05}, MaxLimit: 200},
		{Name: "down", DownEvery: 15 * time.Second, DownFor: 6 * time.Second, MaxLimit: 100},
	}
}

// Member is one running relay of a fleet.
type Member struct {
	Spec  RelaySpec
	Relay *relayd.Relay
	Proxy *Proxy // nil when the verifier connects directly

	mu     sync.Mutex
	down   bool
	queued []*nostr.Event
	downs  int
}

// Fleet is the relays of a simulation.
type Fleet struct {
	Members []*Member

	mu     sync.Mutex
	seenAt map[string]int64 // when each event was first stored on a relay
	errs   []error          // from the fault cycles, reported by Settle
	stop   context.CancelFunc
	faults sync.WaitGroup
}

// StartFleet starts one in-memory relay per spec, with its proxy.
func StartFleet(ctx context.Context, specs []RelaySpec, seed uint64) (*Fleet, error) {
	f := &Fleet{seenAt: map[string]int64{}}
	for i, spec := range specs {
		r, err := relayd.Start(ctx, relayd.Options{MaxLimit: spec.MaxLimit, Name: "sim-" + spec.Name})
		if err != nil {
			f.Close()
			return nil, err
		}
		m := &Member{Spec: spec, Relay: r}
		f.Members = append(f.Members, m)
		if spec.Fault != (Fault{}) {
			if m.Proxy, err = NewProxy(r.Addr(), spec.Fault, seed+uint64(i)); err != nil {
				f.Close()
				return nil, err
			}
		}
	}
	return f, nil
}

// DaemonURLs are the addresses a verifier under test follows: through the
// proxies where there are faults.
func (f *Fleet) DaemonURLs() []string {
	var out []string
	for _, m := range f.Members {
		if m.Proxy != nil {
			out = append(out, m.Proxy.URL())
		} else {
			out = append(out, m.Relay.URL())
		}
	}
	return out
}

// DirectURLs are the relays themselves, for reading what they hold.
func (f *Fleet) DirectURLs() []string {
	var out []string
	for _, m := range f.Members {
		out = append(out, m.Relay.URL())
	}
	return out
}

// Publish stores ev on member i (through the relay's own pipeline, which
// checks it and delivers it to live subscriptions), or queues it while the
// relay is down.
func (f *Fleet) Publish(ctx context.Context, i int, ev *nostr.Event) error {
	m := f.Members[i]
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down {
		m.queued = append(m.queued, ev)
		return nil
	}
	return f.store(ctx, m, ev)
}

func (f *Fleet) store(ctx context.Context, m *Member, ev *nostr.Event) error {
	if err := m.Relay.Publish(ctx, ev); err != nil {
		return fmt.Errorf("sim: relay %s: %w", m.Spec.Name, err)
	}
	f.mu.Lock()
	if _, ok := f.seenAt[ev.ID]; !ok {
		f.seenAt[ev.ID] = time.Now().Unix()
	}
	f.mu.Unlock()
	return nil
}

// Inject stores an event on member i without any check: a relay serving
// a forged event.
func (f *Fleet) Inject(ctx context.Context, i int, ev *nostr.Event) error {
	return f.Members[i].Relay.Inject(ctx, ev)
}

// SeenAt is when each published event was first stored on a relay: a
// lower bound of when any verifier can have seen it.
func (f *Fleet) SeenAt() map[string]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int64, len(f.seenAt))
	for k, v := range f.seenAt {
		out[k] = v
	}
	return out
}

// RunFaults starts the down-and-up cycles; Settle ends them.
func (f *Fleet) RunFaults(ctx context.Context) {
	ctx, f.stop = context.WithCancel(ctx)
	for _, m := range f.Members {
		if m.Spec.DownEvery <= 0 || m.Spec.DownFor <= 0 {
			continue
		}
		f.faults.Go(func() {
			for {
				if !pause.For(ctx, m.Spec.DownEvery) {
					return
				}
				f.note(f.setDown(m, true))
				if !pause.For(ctx, m.Spec.DownFor) {
					return
				}
				f.note(f.setDown(m, false))
			}
		})
	}
}

func (f *Fleet) note(err error) {
	if err != nil {
		f.mu.Lock()
		f.errs = append(f.errs, err)
		f.mu.Unlock()
	}
}

func (f *Fleet) setDown(m *Member, down bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.down == down {
		return nil
	}
	if down {
		m.Relay.Stop()
		m.down = true
		m.downs++
		return nil
	}
	if err := m.Relay.Restart(); err != nil {
		return err
	}
	m.down = false
	var errs []error
	for _, ev := range m.queued {
		errs = append(errs, f.store(context.Background(), m, ev))
	}
	m.queued = nil
	return errors.Join(errs...)
}

// AwaitFaults waits until every fault cycle has come round at least once
// (each relay that goes down has been down, each dropping proxy has
// dropped a connection), or until patience passes; it reports whether
// they all did. A live tail cut short by a slow host (its events all
// overdue, published in a burst) still meets every fault it claims to.
func (f *Fleet) AwaitFaults(ctx context.Context, patience time.Duration) bool {
	deadline := time.Now().Add(patience)
	for !f.faultsMet() {
		if time.Now().After(deadline) || !pause.For(ctx, 100*time.Millisecond) {
			return false
		}
	}
	return true
}

func (f *Fleet) faultsMet() bool {
	for _, m := range f.Members {
		m.mu.Lock()
		downs := m.downs
		m.mu.Unlock()
		if m.Spec.DownEvery > 0 && m.Spec.DownFor > 0 && downs == 0 {
			return false
		}
		if m.Proxy != nil && m.Spec.Fault.Drop > 0 && m.Proxy.Stats().Drops == 0 {
			return false
		}
	}
	return true
}

// Settle ends the faults that stop a verifier from catching up: the
// down-and-up cycles (every relay is brought up and its queue stored) and
// the random drops. Delays, duplicates and garbage go on: they are how
// those relays are, not events.
func (f *Fleet) Settle() error {
	if f.stop != nil {
		f.stop()
	}
	f.faults.Wait()
	f.mu.Lock()
	errs := f.errs
	f.errs = nil
	f.mu.Unlock()
	for _, m := range f.Members {
		errs = append(errs, f.setDown(m, false))
		if m.Proxy != nil {
			fault := m.Proxy.currentFault()
			fault.Drop = 0
			m.Proxy.SetFault(fault)
		}
	}
	return errors.Join(errs...)
}

// Close stops everything.
func (f *Fleet) Close() {
	if f.stop != nil {
		f.stop()
	}
	f.faults.Wait()
	for _, m := range f.Members {
		if m.Proxy != nil {
			m.Proxy.Close()
		}
		m.Relay.Close()
	}
}

// MemberStats is what happened to one relay.
type MemberStats struct {
	Name   string
	Events int // stored now
	Downs  int
	Proxy  ProxyStats
}

// Stats reports every member.
func (f *Fleet) Stats() []MemberStats {
	var out []MemberStats
	for _, m := range f.Members {
		m.mu.Lock()
		st := MemberStats{Name: m.Spec.Name, Events: m.Relay.Count(), Downs: m.downs}
		m.mu.Unlock()
		if m.Proxy != nil {
			st.Proxy = m.Proxy.Stats()
		}
		out = append(out, st)
	}
	return out
}
