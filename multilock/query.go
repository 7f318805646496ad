package multilock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// The queries a member answers for the Mutex's own. Every lock of this
// module but a RedLock answers them all.
type (
	isLocker interface {
		IsLocked(context.Context) (bool, error)
	}
	holdCounts interface {
		HoldCount(context.Context) (int, error)
	}
	ttler interface {
		TTL(context.Context) (time.Duration, error)
	}
	forcer interface {
		ForceUnlock(context.Context) (bool, error)
	}
)

// IsLocked reports whether any member is held, by any owner: whether the
// Mutex is taken, wholly or in part, so that a Lock by another owner would
// wait (and its TryLock fail). It is the same question a single lock's
// IsLocked answers, asked of the whole. To tell a Mutex held as a whole by
// its owner from members held by others, see [Mutex.HoldCount].
//
// Every member is asked at once; the answers are a moment's snapshot,
// not one atomic read. It returns an error wrapping
// [errors.ErrUnsupported], before asking anything, when a member has no
// IsLocked (a RedLock, or a Locker of your own without it), and the
// members' errors joined when any fails.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) {
	locked, err := query(ctx, m, "is locked", isLocker.IsLocked)
	if err != nil {
		return false, err
	}
	for _, l := range locked {
		if l {
			return true, nil
		}
	}
	return false, nil
}

// HoldCount returns how many times m's owner holds the Mutex as a whole,
// as Redis sees it: the smallest of the members' hold counts for this
// owner. It is 0 unless the owner holds every member, and n after n Locks
// that were not undone (each Lock re-enters every member). Members held by
// other owners do not count. Members that are one lock (the same name
// under one owner id: the second re-enters the first's hold) count each
// of their takes: such a Mutex reads 2 after one Lock.
//
// Errors are those of [Mutex.IsLocked].
func (m *Mutex) HoldCount(ctx context.Context) (int, error) {
	counts, err := query(ctx, m, "hold count", holdCounts.HoldCount)
	if err != nil {
		return 0, err
	}
	least := counts[0]
	for _, n := range counts[1:] {
		least = min(least, n)
	}
	return least, nil
}

// TTL returns the shortest remaining lease among the members that are
// held, whoever holds them; 0 when no member is held, so TTL is positive
// exactly when [Mutex.IsLocked] reports true. For a Mutex held as a whole
// it is how long the hold lasts at least if nobody renews it: the first
// member to lapse ends it. (A watched hold is renewed long before.)
//
// Errors are those of [Mutex.IsLocked].
func (m *Mutex) TTL(ctx context.Context) (time.Duration, error) {
	ttls, err := query(ctx, m, "ttl", ttler.TTL)
	if err != nil {
		return 0, err
	}
	var least time.Duration
	for _, d := range ttls {
		if d > 0 && (least == 0 || d < least) {
			least = d
		}
	}
	return least, nil
}

// ForceUnlock frees every member, whoever holds it and however many times,
// with each member's own ForceUnlock (which wakes its waiters), and
// reports whether any hold was removed. The members are freed at once; an
// error from one does not keep the others from being freed, and the
// errors are returned joined. Other owners that held members learn that
// they lost them from the watchdog or their next Unlock, which reports
// [lockkit.ErrLost]; m itself holds nothing afterwards, and its own
// Unlock reports [lockkit.ErrNotHeld].
//
// When a member has no ForceUnlock (a RedLock, or a Locker of your own
// without it), ForceUnlock frees nothing and returns an error wrapping
// [errors.ErrUnsupported], before sending anything.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) {
	removed, err := query(ctx, m, "force unlock", forcer.ForceUnlock)
	freed := false
	for _, r := range removed {
		freed = freed || r
	}
	return freed, err
}

// query asks every member of m, at once, the question ask puts to a
// member of type Q, and returns the answers in the order of m's locks. It
// checks first that every member is a Q, and returns an error wrapping
// errors.ErrUnsupported naming the first that is not, having asked
// nothing. The answers come back with the members' errors joined (each
// names its lock), so that what did succeed (a member that was freed, say)
// is still reported.
func query[Q, T any](ctx context.Context, m *Mutex, op string, ask func(Q, context.Context) (T, error)) ([]T, error) {
	if err := m.checkInput(ctx); err != nil {
		return nil, err
	}
	members := make([]Q, len(m.locks))
	for i, l := range m.locks {
		q, ok := l.(Q)
		if !ok {
			return nil, fmt.Errorf("lockkit: multilock %q: %s: member %q (%T) cannot answer: %w", m.name, op, l.Name(), l, errors.ErrUnsupported)
		}
		members[i] = q
	}
	answers := make([]T, len(members))
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, q := range members {
		wg.Go(func() { answers[i], errs[i] = ask(q, ctx) })
	}
	wg.Wait()
	return answers, errors.Join(errs...)
}

// A Mutex answers what every lock of the module answers, except a RedLock.
var (
	_ isLocker   = (*Mutex)(nil)
	_ holdCounts = (*Mutex)(nil)
	_ ttler      = (*Mutex)(nil)
	_ forcer     = (*Mutex)(nil)
)
