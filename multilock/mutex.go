package multilock

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// WithLockWait bounds how long [Mutex.Lock] waits for any one lock. When
// the bound runs out, Lock releases the locks it took in this round and
// starts over (after a short random sleep), until its ctx ends. Use it so
// that a Mutex stuck behind one busy lock does not keep the others it
// already holds from their other users for long. Without it, Lock waits
// for each lock in turn for as long as ctx allows; the fixed order already
// rules out deadlock. d must be positive. It applies to a multilock's
// Mutex only (not to a RedLock, and not as a Client default). Default: no
// bound.
func WithLockWait(d time.Duration) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithLockWait", false, config.Multi) {
			return
		}
		if d <= 0 {
			o.Fail("WithLockWait", "wait must be positive, got %v", d)
			return
		}
		o.LockWait = d
	}
}

// errBusy marks a round that failed because a lock is held by someone
// else: a TryLock said no, or a bounded wait ran out.
var errBusy = errors.New("lock busy")

// Mutex holds several locks as one: Lock returns once it holds all of
// them, and a failed Lock or TryLock holds none of those it took. The
// locks may be of any kind and live in different Cluster slots or on
// different servers. It keeps nothing in Redis of its own.
//
// A Mutex is safe for concurrent use as far as its locks are; its owner
// is the owners of its locks. Use it through the pointer New returns; a
// zero Mutex is not usable (its methods return [lockkit.ErrInvalid]).
type Mutex struct {
	name   string
	err    error            // invalid arguments, reported by every method
	locks  []lockkit.Locker // in the order they are taken
	tied   []bool           // locks[i] shares its name with another lock
	wait   time.Duration    // WithLockWait; 0: no bound
	waiter core.Backoff     // spaces the rounds of Lock

	mu    sync.Mutex    // guards doubt, kept and owed
	doubt []bool        // the locks whose release the last Unlock left in doubt; nil when none
	kept  map[int]error // outcomes of those releases that a failed round settled since (see retryDoubt)
	// owed marks the locks whose give-back after a failed round was left
	// in doubt: their next Unlock is its retry (see settleOwed); nil when
	// none.
	owed []bool
}

var _ lockkit.Locker = (*Mutex)(nil)

// New returns a Mutex over locks. It does no I/O and cannot fail: invalid
// arguments (no locks, a nil lock, the same lock value twice, a lock that
// was given invalid arguments itself, a nil or bad option, an option of
// another kind) make every method return an error matching
// [lockkit.ErrInvalid], before anything is sent. A lock tells it was
// given invalid arguments by answering a TryLock with an ended context
// with ErrInvalid, as every lock of this module does; New asks each so,
// which sends nothing.
//
// The locks are taken in the order of their names (see [Mutex.Lock]); the
// order of locks does not matter. A Mutex among them stands for its
// members, which join the order one by one.
func New(locks []lockkit.Locker, opts ...lockkit.Option) *Mutex {
	m := &Mutex{}
	o := config.Defaults(config.Multi)
	config.Apply(&o, opts)
	m.wait = o.LockWait
	m.waiter = core.Backoff{Floor: o.BackoffFloor, Cap: o.BackoffCap}
	if m.err = validateLocks(locks); m.err != nil {
		return m
	}
	if m.locks, m.err = flatten(locks); m.err != nil {
		return m
	}
	if m.err = validateLocks(m.locks); m.err != nil {
		return m
	}
	if m.err = validMembers(m.locks); m.err != nil {
		return m
	}
	if p := o.Problems(); len(p) > 0 {
		m.err = core.Invalid("multilock: %s", p[0])
		return m
	}
	slices.SortStableFunc(m.locks, func(a, b lockkit.Locker) int { return cmp.Compare(a.Name(), b.Name()) })
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

// flatten replaces every Mutex among locks by its members, so that one
// name order covers every lock that is actually taken: a Mutex member
// ordered by its joined name would break the order.
func flatten(locks []lockkit.Locker) ([]lockkit.Locker, error) {
	var flat []lockkit.Locker
	for _, l := range locks {
		if ml, ok := l.(*Mutex); ok {
			if err := ml.checkInput(context.Background()); err != nil {
				return nil, err
			}
			flat = append(flat, ml.locks...)
			continue
		}
		flat = append(flat, l)
	}
	return flat, nil
}

func validateLocks(locks []lockkit.Locker) error {
	if len(locks) == 0 {
		return core.Invalid("multilock: no locks")
	}
	seen := map[any]int{}
	for i, l := range locks {
		if config.IsNil(l) {
			return core.Invalid("multilock: lock %d is nil", i)
		}
		if reflect.ValueOf(l).Kind() == reflect.Pointer {
			if j, dup := seen[l]; dup {
				return core.Invalid("multilock: locks %d and %d are the same value", j, i)
			}
			seen[l] = i
		}
	}
	return nil
}

// validMembers returns the error of the first of locks that reports,
// asked to TryLock with an ended context, that it was given invalid
// arguments; nil when none does. Asked so, a lock of this module sends
// nothing and changes nothing.
func validMembers(locks []lockkit.Locker) error {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for i, l := range locks {
		if _, err := l.TryLock(ended); errors.Is(err, lockkit.ErrInvalid) {
			return fmt.Errorf("multilock: lock %d (%q): %w", i, l.Name(), err)
		}
	}
	return nil
}

// Lock takes every lock, blocking until it holds them all or ctx ends.
//
// Locks are taken one after another in the order of their names, so two
// Mutexes with overlapping sets, in any process, always wait for their
// common locks in the same order and cannot deadlock. Each lock's Lock is
// bounded by ctx (and by [WithLockWait] if set). Locks that share a name
// (distinct locks on different servers, say) cannot be ordered between
// callers, so they are taken with TryLock and never waited on.
//
// When a lock cannot be taken (its bounded wait ran out, a TryLock said
// no, or it returned an error), Lock releases the locks it took in this
// round, all at once (waiting at most 500 ms for them, even after ctx
// ended), sleeps for a short random time and starts over. When ctx ends,
// the error matches both [lockkit.ErrNotObtained] and ctx.Err(), and
// includes the last failure, if any (a lock's wait that ended with a
// failure of its own, such as a RedLock's [lockkit.ErrQuorum], is one); m
// then holds nothing it did not hold before. An error that another round
// cannot cure is returned at once: [lockkit.ErrInvalid],
// [lockkit.ErrWrongKind] or [lockkit.ErrClosed] from a lock,
// [lockkit.ErrUpgrade] from the write side of a read-write lock whose
// owner holds its read lock, a lock's go-redis client closed
// ([redis.ErrClosed]), or a failure
// to release what a failed round took (it names the locks that may still
// be held; their own Unlock settles them, and so does m's next Lock or
// TryLock, before it takes them again: the new hold is then the one m's
// Unlock releases).
func (m *Mutex) Lock(ctx context.Context) error {
	if err := m.checkInput(ctx); err != nil {
		return err
	}
	var last, fatal error // the last round's failure; one that ends Lock
	err := core.Wait(ctx, nil, m.name, m.waiter, func(ctx context.Context, _ ...any) (bool, time.Duration, error) {
		n, err := m.take(ctx, false)
		if err == nil {
			return true, -1, nil
		}
		if rerr := m.rollback(ctx, n); rerr != nil {
			fatal = errors.Join(err, rerr)
			return false, 0, errFatal
		}
		switch {
		case ctx.Err() != nil:
			// The round was cut short; the one before says more, unless
			// the lock's own wait says why it failed.
			if !errors.Is(err, errBusy) && failed(err) {
				last = err
			}
		case permanent(err):
			fatal = err
			return false, 0, errFatal
		case !errors.Is(err, errBusy):
			last = err
		}
		return false, -1, nil
	})
	if fatal != nil {
		return fatal
	}
	return withLast(err, last)
}

// errFatal ends the wait of Lock when a round failed in a way that ends
// Lock, kept in fatal: the wait would start over after such an error
// that it takes for a passing network fault (a give-back that timed out,
// say), and another round could then take every lock and return fatal
// holding them.
var errFatal = errors.New("multilock: fatal round")

// permanent reports whether a lock's error will not go away by trying
// again. A go-redis client closed (by its user) never serves again.
func permanent(err error) bool {
	return errors.Is(err, lockkit.ErrInvalid) || errors.Is(err, lockkit.ErrWrongKind) ||
		errors.Is(err, lockkit.ErrUpgrade) || core.ClientClosed(err)
}

// withLast adds last, the failure of the last round that was not just a
// busy lock, to err, the error of a wait that ended with its ctx.
func withLast(err, last error) error {
	if err == nil || last == nil || !errors.Is(err, lockkit.ErrNotObtained) {
		return err
	}
	return fmt.Errorf("%w (last failure: %w)", err, last)
}

// TryLock tries once to take every lock, each with its TryLock, and
// reports whether it got them all. If not, it releases those it took, as
// Lock does (waiting at most 500 ms for them), and returns false, with the
// error of the lock that failed, if any.
func (m *Mutex) TryLock(ctx context.Context) (bool, error) {
	if err := m.checkInput(ctx); err != nil {
		return false, err
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
func (m *Mutex) take(ctx context.Context, try bool) (int, error) {
	for i, l := range m.locks {
		if err := m.settleOwed(ctx, i); err != nil {
			return i, err
		}
		if err := m.takeOne(ctx, l, try || m.tied[i]); err != nil {
			return i, err
		}
	}
	return len(m.locks), nil
}

// settleOwed settles the give-back of lock i that a failed round left in
// doubt, if any, before the lock is taken again: its next Unlock is that
// give-back's retry (a lock's next Unlock after one in doubt is its
// retry, and leaves a newer hold be), so that taking the lock first would
// leave the new hold to an Unlock of m that only retried the old one. It
// returns an error when the retry is in doubt too: the lock may still be
// held by the failed round, and is not taken.
func (m *Mutex) settleOwed(ctx context.Context, i int) error {
	m.mu.Lock()
	owed := m.owed != nil && m.owed[i]
	m.mu.Unlock()
	if !owed {
		return nil
	}
	if err := m.locks[i].Unlock(ctx); inDoubt(err) {
		return fmt.Errorf("%q may still be held by a failed attempt: %w", m.locks[i].Name(), err)
	}
	m.settled(i)
	return nil
}

// settled records that lock i owes no give-back: its retry answered.
func (m *Mutex) settled(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.owed == nil {
		return
	}
	m.owed[i] = false
	if !slices.Contains(m.owed, true) {
		m.owed = nil
	}
}

func (m *Mutex) takeOne(ctx context.Context, l lockkit.Locker, try bool) error {
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
	if m.wait <= 0 {
		return l.Lock(ctx)
	}
	lctx, cancel := context.WithTimeout(ctx, m.wait)
	defer cancel()
	err := l.Lock(lctx)
	if err != nil && ctx.Err() == nil && lctx.Err() != nil && !failed(err) {
		return errBusy
	}
	return err
}

// failed reports whether err, the error of a lock's Lock, says more than
// that its wait ended (ErrNotObtained with ctx's error): the failure that
// kept the lock from being taken meanwhile (a RedLock's nodes that did not
// answer, say).
func failed(err error) bool {
	switch x := err.(type) {
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(x.Unwrap(), failed)
	case interface{ Unwrap() error }:
		return failed(x.Unwrap())
	}
	return err != nil && err != lockkit.ErrNotObtained && err != context.Canceled && err != context.DeadlineExceeded
}

// rollback releases the first n locks, all at once, on a context
// detached from the caller's and bounded by [core.CleanupTimeout]: it runs
// even when ctx has ended, since a lock left held would keep being
// renewed, and the one bound covers every lock, however many a server
// that stopped answering holds up. Locks found already gone are no
// failure; any other error means the lock may still be held.
func (m *Mutex) rollback(ctx context.Context, n int) error {
	if n == 0 {
		return nil
	}
	ctx, cancel := core.Detached(ctx)
	defer cancel()
	var errs []error
	unsettled := m.retryDoubt(ctx, n)
	released := unlockAll(ctx, m.locks[:n], func(i int) bool { return unsettled[i] == nil })
	for i := n - 1; i >= 0; i-- {
		err := released[i]
		if unsettled[i] != nil {
			err = unsettled[i]
		}
		if inDoubt(err) {
			errs = append(errs, fmt.Errorf("%q may still be held: %w", m.locks[i].Name(), err))
			m.owe(i)
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("lockkit: multilock %q: releasing after a failed attempt: %w", m.name, errors.Join(errs...))
}

// owe records that lock i's give-back after a failed round is in doubt
// (see settleOwed).
func (m *Mutex) owe(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.owed == nil {
		m.owed = make([]bool, len(m.locks))
	}
	m.owed[i] = true
}

// retryDoubt makes the retry of the last Unlock, left in doubt, for each
// of the first n locks, taken by a failed round, whose release it left in
// doubt: that lock's next Unlock is the retry (see Unlock), and releases
// nothing the round took. It keeps each outcome for m's next Unlock, and
// returns, for each of the n locks, the error of a retry still in doubt:
// the round's hold of that lock cannot be given back yet.
func (m *Mutex) retryDoubt(ctx context.Context, n int) []error {
	m.mu.Lock()
	doubt, kept := m.doubt, m.kept
	m.mu.Unlock()
	unsettled := make([]error, n)
	if doubt == nil {
		return unsettled
	}
	ask := unsettledIn(doubt, kept)
	outcomes := unlockAll(ctx, m.locks[:n], ask)
	more := maps.Clone(kept) // an Unlock may read kept meanwhile
	for i, err := range outcomes {
		switch {
		case !ask(i):
		case inDoubt(err):
			unsettled[i] = err
		default:
			if more == nil {
				more = map[int]error{}
			}
			more[i] = err
		}
	}
	m.mu.Lock()
	m.kept = more
	m.mu.Unlock()
	return unsettled
}

// unsettledIn reports, for lock i, whether the last Unlock left its
// release in doubt (doubt) and no failed round has settled it since
// (kept): whether the next Unlock must ask it again.
func unsettledIn(doubt []bool, kept map[int]error) func(i int) bool {
	return func(i int) bool {
		_, settled := kept[i]
		return doubt[i] && !settled
	}
}

// Unlock releases every lock, all at once, and returns their errors
// joined: it matches [lockkit.ErrNotHeld] if a lock was not held and
// [lockkit.ErrLost] if a lock's hold was lost. An error from one lock does
// not keep the others from being released, and a slow one does not hold
// up the others' releases: Unlock returns within ctx's deadline like each
// lock's own Unlock. Each lock's Unlock keeps its own contract: one that
// failed with a Redis error can be settled by calling Unlock again (the
// locks that were released already then report ErrNotHeld). That call is
// the retry even when m was locked again meanwhile: it asks only the
// locks whose release was in doubt, and releases none of the newer holds.
// A Lock or TryLock round that fails meanwhile asks those of the locks it
// took first, for the retry, and then gives back what it took of them too;
// the retry returns the outcomes it learnt.
func (m *Mutex) Unlock(ctx context.Context) error {
	if err := m.checkInput(ctx); err != nil {
		return err
	}
	m.mu.Lock()
	prev, kept := m.doubt, m.kept
	m.mu.Unlock()
	var ask func(i int) bool // nil: every lock
	if prev != nil {
		ask = unsettledIn(prev, kept)
	}
	errs := unlockAll(ctx, m.locks, ask)
	var doubt []bool
	for i, err := range errs {
		if (ask == nil || ask(i)) && !inDoubt(err) {
			// Its Unlock answered: whatever give-back it owed is settled.
			m.settled(i)
		}
		switch {
		case ask != nil && !ask(i):
			// Released by the Unlock in doubt that this one retries, or
			// settled since by a failed round.
			errs[i] = core.NotHeld(m.locks[i].Name())
			if err, ok := kept[i]; ok {
				errs[i] = err
			}
		case inDoubt(err):
			if doubt == nil {
				doubt = make([]bool, len(m.locks))
			}
			doubt[i] = true
		}
	}
	m.mu.Lock()
	m.doubt, m.kept = doubt, nil
	m.mu.Unlock()
	slices.Reverse(errs) // last taken first, as they were released before
	return errors.Join(errs...)
}

// inDoubt reports whether err, the error of a lock's Unlock, leaves its
// release in doubt (see core.InDoubt). ErrClosed does not: a lock of a
// closed Client returns it only when it holds nothing, and so does every
// later Unlock of it, so that asking it again would keep the next Unlock
// from releasing the other locks.
func inDoubt(err error) bool {
	return core.InDoubt(err) && !errors.Is(err, lockkit.ErrClosed)
}

// unlockAll unlocks the locks of locks that ask selects (every lock when
// ask is nil) at once, each in a goroutine of its own, and returns their
// errors, in the order of locks: nil for a lock not asked.
func unlockAll(ctx context.Context, locks []lockkit.Locker, ask func(i int) bool) []error {
	errs := make([]error, len(locks))
	var wg sync.WaitGroup
	for i, l := range locks {
		if ask == nil || ask(i) {
			wg.Go(func() { errs[i] = l.Unlock(ctx) })
		}
	}
	wg.Wait()
	return errs
}

// Name returns the names of the locks in the order they are taken, joined
// by "+".
func (m *Mutex) Name() string {
	if m == nil {
		return ""
	}
	return m.name
}

// Locks returns the locks in the order they are taken.
func (m *Mutex) Locks() []lockkit.Locker {
	if m == nil {
		return nil
	}
	return slices.Clone(m.locks)
}

// checkInput returns the error every method returns before it does
// anything: for a nil or zero-value Mutex, invalid arguments to New, or a
// nil ctx.
func (m *Mutex) checkInput(ctx context.Context) error {
	switch {
	case m == nil || (m.err == nil && len(m.locks) == 0):
		return core.Invalid("multilock: lock not made by its New (nil or zero value)")
	case m.err != nil:
		return m.err
	case ctx == nil:
		return core.Invalid("multilock %q: nil context", m.name)
	}
	return nil
}
