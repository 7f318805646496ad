package rwlock

import (
	"context"
	"strconv"
	"time"

	"github.com/lockkit/lockkit/internal/core"
)

// Mode says how a lock is held.
type Mode int

// The modes of a lock.
const (
	// Unlocked: no live hold.
	Unlocked Mode = iota
	// ReadLocked: one or more owners hold the read lock, none the write lock.
	ReadLocked
	// WriteLocked: one owner holds the write lock (and maybe, having
	// downgraded, the read lock too).
	WriteLocked
)

// String returns "unlocked", "read" or "write".
func (m Mode) String() string {
	switch m {
	case Unlocked:
		return "unlocked"
	case ReadLocked:
		return "read"
	case WriteLocked:
		return "write"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// State is what Redis says about a lock at one moment. Only live holds
// count: a hold whose lease has ended counts as gone even before a script
// purges it.
type State struct {
	// Mode is how the lock is held.
	Mode Mode
	// Readers is the number of owners holding the read lock, a writer that
	// also took the read lock included.
	Readers int
	// WaitingWriters is the number of writers waiting in Lock with writer
	// preference, whose intents hold back new readers.
	WaitingWriters int
	// HoldCount and RHoldCount are how many times the asking owner holds
	// the write and the read lock; 0 when it holds none.
	HoldCount, RHoldCount int
	// TTL is the time until the latest live lease ends; 0 when unlocked.
	TTL time.Duration
}

// State returns the lock's state as Redis sees it, in one round trip; the
// hold counts are m's. It returns an error matching [lockkit.ErrWrongKind]
// when a lock of another kind holds the name.
func (m *RWMutex) State(ctx context.Context) (State, error) {
	if err := m.base().Check(ctx); err != nil {
		return State{}, err
	}
	s, err := readState(ctx, m.b.Cfg.Client, m.k, m.b.Cfg.Owner)
	if err != nil {
		return State{}, core.Op("state", m.b.Cfg.Name, err)
	}
	return s, nil
}

// Mode reports how the lock is held, by any owner.
func (m *RWMutex) Mode(ctx context.Context) (Mode, error) {
	s, err := m.State(ctx)
	return s.Mode, err
}

// IsLocked reports whether any owner holds the lock, for reading or writing.
func (m *RWMutex) IsLocked(ctx context.Context) (bool, error) {
	s, err := m.State(ctx)
	return s.Mode != Unlocked, err
}

// Readers returns the number of owners holding the read lock.
func (m *RWMutex) Readers(ctx context.Context) (int, error) {
	s, err := m.State(ctx)
	return s.Readers, err
}

// HoldCount returns how many times m holds the write lock, as Redis sees
// it: 0 when it holds no write hold.
func (m *RWMutex) HoldCount(ctx context.Context) (int, error) {
	s, err := m.State(ctx)
	return s.HoldCount, err
}

// RHoldCount returns how many times m holds the read lock, as Redis sees
// it: 0 when it holds no read hold.
func (m *RWMutex) RHoldCount(ctx context.Context) (int, error) {
	s, err := m.State(ctx)
	return s.RHoldCount, err
}

// TTL returns the time until the lock's latest live lease ends, whoever
// holds it: the lock follows its longest live hold. It is 0 when the lock
// is free.
func (m *RWMutex) TTL(ctx context.Context) (time.Duration, error) {
	s, err := m.State(ctx)
	return s.TTL, err
}
