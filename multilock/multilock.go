package multilock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/lockkit/lockkit/internal"
)

// rollbackTimeout bounds the release of the locks a failed round took. It
// runs even when the caller's ctx has ended, since a lock left held would
// keep being renewed.
const rollbackTimeout = 5 * time.Second

// errBusy marks a round that failed because a lock is held by someone else:
// a TryLock said no, or a bounded wait ran out.
var errBusy = errors.New("lock busy")

// MultiLock holds several locks as one: Lock returns once it holds all of
// them, and a failed Lock or TryLock holds none of those it took. The locks
// may be of any kind and live in different Cluster slots or on different
// servers.
//
// A MultiLock is safe for concurrent use as far as its locks are; its
// owner is the owners of its locks.
type MultiLock struct {
	name     string
	err      error    // invalid arguments, reported by every method
	locks    []Locker // in the order they are taken
	tied     []bool   // locks[i] shares its name with another lock
	lockWait time.Duration
}

var _ Locker = (*MultiLock)(nil)

// New returns a MultiLock over locks. It does no I/O and cannot fail:
// invalid arguments (no locks, a nil lock, the same lock value twice, a bad
// option) make every method return an error matching [ErrInvalid].
//
// The locks are taken in the order of their names (see [MultiLock.Lock]);
// the order of locks does not matter. A MultiLock among them stands for its
// members, which join the order one by one.
func New(locks []Locker, opts ...Option) *MultiLock {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	m := &MultiLock{lockWait: o.lockWait}
	if m.err = validateLocks(locks); m.err != nil {
		return m
	}
	if m.locks, m.err = flatten(locks); m.err != nil {
		return m
	}
	if m.err = validateLocks(m.locks); m.err == nil && len(o.errs) > 0 {
		m.err = o.errs[0]
	}
	if m.err != nil {
		return m
	}
	slices.SortStableFunc(m.locks, func(a, b Locker) int { return cmp.Compare(a.Name(), b.Name()) })
	m.tied = make([]bool, len(m.locks))
	names := make([]string, len(m.locks))
	for i, l := range m.locks {
		names[i] = l.Name()
		if i > 0 && names[i] == names[i-1] {
			m.tied[i], m.tied[i-1] = true, true
		}
	}
	m.name = strings.Join(names, "+")
	return m
}

// flatten replaces every MultiLock among locks by its members, so that one
// name order covers every lock that is actually taken: a MultiLock member
// ordered by its joined name would break the order.
func flatten(locks []Locker) ([]Locker, error) {
	var flat []Locker
	for _, l := range locks {
		if ml, ok := l.(*MultiLock); ok {
			if ml.err != nil {
				return nil, ml.err
			}
			flat = append(flat, ml.locks...)
			continue
		}
		flat = append(flat, l)
	}
	return flat, nil
}

func validateLocks(locks []Locker) error {
	if len(locks) == 0 {
		return internal.Invalid("multilock: no locks")
	}
	seen := map[any]int{}
	for i, l := range locks {
		if internal.IsNil(l) {
			return internal.Invalid("multilock: lock %d is nil", i)
		}
		if reflect.ValueOf(l).Kind() == reflect.Pointer {
			if j, dup := seen[l]; dup {
				return internal.Invalid("multilock: locks %d and %d are the same value", j, i)
			}
			seen[l] = i
		}
	}
	return nil
}

// Lock takes every lock, blocking until it holds them all or ctx ends.
//
// Locks are taken one after another in the order of their names, so two
// MultiLocks with overlapping sets, in any process, always wait for their
// common locks in the same order and cannot deadlock. Each lock's Lock is
// bounded by ctx (and by [WithLockWait] if set). Locks that share a name
// (distinct locks on different servers, say) cannot be ordered between
// callers, so they are taken with TryLock and never waited on.
//
// When a lock cannot be taken — its bounded wait ran out, a TryLock said
// no, or it returned an error — Lock releases the locks it took in this
// round, in reverse order, sleeps for a short random time and starts over.
// When ctx ends, the error matches both [ErrNotObtained] and ctx.Err(),
// and includes the last failure, if any; the MultiLock then holds nothing
// it did not hold before. An [ErrInvalid] from a lock is returned at once,
// as is a failure to release what a failed round took (it names the locks
// that may still be held; their own Unlock settles them).
func (m *MultiLock) Lock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	b := internal.NewBackoff(retryFloor, retryCap)
	var last error // the failure of the last round, other than errBusy
	for {
		if err := ctx.Err(); err != nil {
			return notObtained(m.name, err, last)
		}
		n, err := m.take(ctx, false)
		if err == nil {
			return nil
		}
		if rerr := m.rollback(ctx, n); rerr != nil {
			return errors.Join(err, rerr)
		}
		switch {
		case ctx.Err() != nil:
			return notObtained(m.name, ctx.Err(), last)
		case errors.Is(err, ErrInvalid):
			return err
		case !errors.Is(err, errBusy):
			last = err
		}
		if err := b.Sleep(ctx, -1); err != nil {
			return notObtained(m.name, err, last)
		}
	}
}

// TryLock tries once to take every lock, each with its TryLock, and
// reports whether it got them all. If not, it releases those it took and
// returns false, with the error of the lock that failed, if any.
func (m *MultiLock) TryLock(ctx context.Context) (bool, error) {
	if m.err != nil {
		return false, m.err
	}
	n, err := m.take(ctx, true)
	if err == nil {
		return true, nil
	}
	rerr := m.rollback(ctx, n)
	if errors.Is(err, errBusy) {
		err = nil
	}
	return false, errors.Join(err, rerr)
}

// take takes the locks in order until one fails, and returns how many it
// took with the failure: errBusy, a lock's error, or nil.
func (m *MultiLock) take(ctx context.Context, try bool) (int, error) {
	for i, l := range m.locks {
		if err := m.takeOne(ctx, l, try || m.tied[i]); err != nil {
			return i, err
		}
	}
	return len(m.locks), nil
}

func (m *MultiLock) takeOne(ctx context.Context, l Locker, try bool) error {
	if try {
		ok, err := l.TryLock(ctx)
		switch {
		case err != nil:
			return err
		case !ok:
			return errBusy
		}
		return nil
	}
	if m.lockWait <= 0 {
		return l.Lock(ctx)
	}
	lctx, cancel := context.WithTimeout(ctx, m.lockWait)
	defer cancel()
	err := l.Lock(lctx)
	if err != nil && ctx.Err() == nil && lctx.Err() != nil {
		return errBusy
	}
	return err
}

// rollback releases the first n locks, last first, on a ctx that outlives
// the caller's by up to rollbackTimeout. Locks found already gone are no
// failure; any other error means the lock may still be held.
func (m *MultiLock) rollback(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	defer cancel()
	var errs []error
	for i := n - 1; i >= 0; i-- {
		err := m.locks[i].Unlock(rctx)
		if err != nil && !errors.Is(err, ErrNotHeld) && !errors.Is(err, ErrLost) {
			errs = append(errs, fmt.Errorf("%q may still be held: %w", m.locks[i].Name(), err))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("lockkit: multilock %q: releasing after a failed attempt: %w", m.name, errors.Join(errs...))
}

// Unlock releases every lock, in reverse order, and returns their errors
// joined: it matches [ErrNotHeld] if a lock was not held and [ErrLost] if a
// lock's hold was lost. An error from one lock does not keep the others
// from being released.
func (m *MultiLock) Unlock(ctx context.Context) error {
	if m.err != nil {
		return m.err
	}
	var errs []error
	for i := len(m.locks) - 1; i >= 0; i-- {
		errs = append(errs, m.locks[i].Unlock(ctx))
	}
	return errors.Join(errs...)
}

// Name returns the names of the locks in the order they are taken, joined
// by "+".
func (m *MultiLock) Name() string { return m.name }

// Locks returns the locks in the order they are taken.
func (m *MultiLock) Locks() []Locker { return slices.Clone(m.locks) }
