package redistest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"

	"github.com/lockkit/lockkit"
)

// RaceLock is what a [LockRace] needs of a lock: a [Locker] that can also
// try once. Any of ForceUnlock, HoldCount, IsLocked, Token, Lost and
// Context that the lock has is called too.
type RaceLock interface {
	Locker
	TryLock(ctx context.Context) (bool, error)
}

// LockRace makes the goroutines of a [CloseRace] over exclusive lock
// values: goroutine i locks, tries, unlocks, force-unlocks and queries
// Locks[i%len(Locks)], so that the goroutines sharing a value share its
// hold and those of other values wait for it. Each goroutine counts the
// Locks it made that succeeded and unlocks as many, part way and in
// Finish.
//
// What the docs allow: a Lock or TryLock that began after Close returns
// ErrClosed; one under way returns nil, ErrClosed, or, when its ctx ended
// first, ErrNotObtained; an Unlock returns nil, ErrNotHeld (a ForceUnlock
// freed the hold), ErrLost or ErrClosed, before and after Close, and
// never leaves its ctx to end (the server answers).
type LockRace struct {
	// Locks are the lock values the goroutines share.
	Locks []RaceLock
	// Done is closed by Close.
	Done <-chan struct{}
	RaceRules

	inside atomic.Int32 // goroutines holding, when Exclusive
}

// RaceRules are what a [LockRace] allows beyond what every lock does.
type RaceRules struct {
	// Exclusive says that the goroutines exclude each other (values that
	// do not re-enter, WithoutReentry, of one owner): a goroutine then
	// locks only while it holds nothing, ForceUnlock is not called, and
	// two goroutines holding at once while the Client is open is an
	// error.
	Exclusive bool
	// LockErrs are further outcomes of Lock and TryLock that the docs
	// allow (ErrUpgrade for a read-write lock's writer, say).
	LockErrs []error
}

// Racer returns goroutine i's Racer; it is CloseRace.Racer.
func (lr *LockRace) Racer(i int, rng *rand.Rand) Racer {
	return &lockRacer{lr: lr, l: lr.Locks[i%len(lr.Locks)], rng: rng}
}

// lockRacer is one goroutine of a LockRace.
type lockRacer struct {
	lr   *LockRace
	l    RaceLock
	rng  *rand.Rand
	held int // Locks and TryLocks of this goroutine not unlocked yet
}

func (r *lockRacer) Step(ctx context.Context, closed bool) error {
	p := r.rng.IntN(100)
	switch {
	case r.held > 0 && (r.lr.Exclusive || p < 40):
		return r.unlock(ctx)
	case p < 10:
		return r.query(ctx, closed)
	case p < 15 && !r.lr.Exclusive:
		if f, ok := r.l.(interface {
			ForceUnlock(context.Context) (bool, error)
		}); ok {
			_, err := f.ForceUnlock(ctx)
			return StepOutcome("ForceUnlock", err, closed)
		}
	case p < 45:
		ok, err := r.l.TryLock(ctx)
		return r.locked("TryLock", ok, err, closed)
	}
	// A Lock that gives up now and then, so that waits end both ways.
	ctx, cancel := GiveUp(ctx, r.rng)
	defer cancel()
	err := r.l.Lock(ctx)
	return r.locked("Lock", err == nil, err, closed)
}

// locked counts a Lock or TryLock (op) that returned ok and err, and
// checks its outcome.
func (r *lockRacer) locked(op string, ok bool, err error, closed bool) error {
	if err != nil || closed {
		return StepOutcome(op, err, closed, append([]error{lockkit.ErrNotObtained}, r.lr.LockErrs...)...)
	}
	if !ok {
		return nil
	}
	r.held++
	if r.lr.Exclusive && r.lr.inside.Add(1) > 1 && !Closed(r.lr.Done) {
		return fmt.Errorf("%s: %w", op, ErrOverlap)
	}
	return nil
}

// unlock undoes one of the goroutine's Locks.
func (r *lockRacer) unlock(ctx context.Context) error {
	r.held--
	if r.lr.Exclusive {
		r.lr.inside.Add(-1)
	}
	return Outcome("Unlock", r.l.Unlock(ctx), lockkit.ErrNotHeld, lockkit.ErrLost, lockkit.ErrClosed)
}

// query calls the lock's queries, of Redis and of the hold.
func (r *lockRacer) query(ctx context.Context, closed bool) error {
	var errs []error
	if q, ok := r.l.(interface {
		HoldCount(context.Context) (int, error)
	}); ok {
		_, err := q.HoldCount(ctx)
		errs = append(errs, StepOutcome("HoldCount", err, closed))
	}
	if q, ok := r.l.(interface {
		IsLocked(context.Context) (bool, error)
	}); ok {
		_, err := q.IsLocked(ctx)
		errs = append(errs, StepOutcome("IsLocked", err, closed))
	}
	if q, ok := r.l.(TokenLocker); ok {
		q.Token()
	}
	if q, ok := r.l.(interface{ Lost() <-chan struct{} }); ok {
		Closed(q.Lost())
	}
	if q, ok := r.l.(interface {
		Context(context.Context) context.Context
	}); ok {
		hctx := q.Context(ctx)
		_ = context.Cause(hctx)
	}
	return errors.Join(errs...)
}

// Finish checks that Close, which has returned, ended the hold, if any:
// its Token is 0, its lost signal closed and its Context ended. Then it
// unlocks as often as the goroutine locked.
func (r *lockRacer) Finish(ctx context.Context) error {
	errs := r.ended(ctx)
	for r.held > 0 {
		errs = append(errs, r.unlock(ctx))
	}
	return errors.Join(errs...)
}

// ended returns what is left of the hold, if any, once Close returned: a
// Token that is not 0, a lost signal still open, a Context not ended.
func (r *lockRacer) ended(ctx context.Context) []error {
	var errs []error
	if q, ok := r.l.(TokenLocker); ok && q.Token() != 0 {
		errs = append(errs, fmt.Errorf("the Token once Close returned = %d, want 0", q.Token()))
	}
	if q, ok := r.l.(interface{ Lost() <-chan struct{} }); ok && q.Lost() != nil && !Closed(q.Lost()) {
		errs = append(errs, errors.New("a hold's lost signal still open once Close returned"))
	}
	if q, ok := r.l.(interface {
		Context(context.Context) context.Context
	}); ok && q.Context(ctx).Err() == nil {
		errs = append(errs, errors.New("a hold's Context not ended once Close returned"))
	}
	return errs
}
