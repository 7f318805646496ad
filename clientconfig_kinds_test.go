package lockkit_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// contended is one kind's hold as the client configuration tests take
// it: hold takes it (or, for a latch, keeps it closed) from a Client,
// inspect checks what the kind's inspection calls say of a live hold,
// release gives it back, and wait blocks until another Client's hold is
// released.
type contended struct {
	kind string
	// start returns the holder's side of name on c: it takes the hold
	// (and checks the inspection calls), and returns its release.
	hold func(ctx context.Context, c *lockkit.Client, name string) (release func(context.Context) error, err error)
	// wait blocks, on c, until name's hold is released and then takes
	// it, returning its release.
	wait func(ctx context.Context, c *lockkit.Client, name string) (release func(context.Context) error, err error)
}

// mutexKind is a contended kind of a lock whose values are
// *reentrant.Mutex (reentrant, fair, spin and the cohort mode).
func mutexKind(kind string, newLock func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex) contended {
	take := func(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
		m := newLock(c, name)
		if err := m.Lock(ctx); err != nil {
			return nil, err
		}
		if err := inspectMutex(ctx, m); err != nil {
			return nil, errors.Join(err, m.Unlock(ctx))
		}
		return m.Unlock, nil
	}
	return contended{kind: kind, hold: take, wait: take}
}

// inspectMutex checks what m's inspection calls say of its live hold.
func inspectMutex(ctx context.Context, m *reentrant.Mutex) error {
	n, err := m.HoldCount(ctx)
	if err != nil || n != 1 {
		return fmt.Errorf("HoldCount = %d, %v; want 1", n, err)
	}
	locked, err := m.IsLocked(ctx)
	if err != nil || !locked {
		return fmt.Errorf("IsLocked = %v, %v; want true", locked, err)
	}
	ttl, err := m.TTL(ctx)
	if err != nil || ttl <= 0 || ttl > lockkit.DefaultWatchdogTimeout {
		return fmt.Errorf("TTL = %v, %v; want a lease up to %v", ttl, err, lockkit.DefaultWatchdogTimeout)
	}
	if m.Token() <= 0 {
		return fmt.Errorf("Token = %d; want > 0", m.Token())
	}
	return nil
}

// configKinds are the kinds the client configuration tests run.
var configKinds = []contended{
	mutexKind("reentrant", reentrant.New),
	mutexKind("cohort", cohortMutex),
	mutexKind("fair", fair.New),
	mutexKind("spin", spin.New),
	{kind: "rwlock", hold: func(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
		m := rwlock.New(c, name)
		if err := m.Lock(ctx); err != nil {
			return nil, err
		}
		st, err := m.State(ctx)
		if err == nil && m.Token() <= 0 {
			err = fmt.Errorf("Token = %d; want > 0", m.Token())
		}
		if err == nil {
			var ttl time.Duration
			if ttl, err = m.TTL(ctx); err == nil && ttl <= 0 {
				err = fmt.Errorf("TTL = %v (state %+v); want > 0", ttl, st)
			}
		}
		if err != nil {
			return nil, errors.Join(err, m.Unlock(ctx))
		}
		return m.Unlock, nil
	}, wait: func(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
		m := rwlock.New(c, name)
		if err := m.RLock(ctx); err != nil {
			return nil, err
		}
		if n, err := m.Readers(ctx); err != nil || n != 1 {
			return nil, errors.Join(fmt.Errorf("Readers = %d, %v; want 1", n, err), m.RUnlock(ctx))
		}
		return m.RUnlock, nil
	}},
	{kind: "multilock", hold: multiTake, wait: multiTake},
	{kind: "redlock", hold: redTake, wait: redTake},
	{kind: "semaphore", hold: semTake, wait: semTake},
	{kind: "latch", hold: func(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
		l := latch.New(c, name, 1)
		return func(ctx context.Context) error {
			n, err := l.CountDown(ctx)
			if err == nil && n != 0 {
				err = fmt.Errorf("CountDown = %d; want 0", n)
			}
			return err
		}, nil
	}, wait: func(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
		l := latch.New(c, name, 1)
		if err := l.Await(ctx); err != nil {
			return nil, err
		}
		if n, err := l.Count(ctx); err != nil || n != 0 {
			return nil, fmt.Errorf("Count = %d, %v; want 0", n, err)
		}
		return func(context.Context) error { return nil }, nil
	}},
	{kind: "election", hold: electTake, wait: electTake},
}

// multiTake takes a multi-lock of two reentrant locks named after name.
func multiTake(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
	m := multilock.New([]lockkit.Locker{reentrant.New(c, name+":a"), fair.New(c, name+":b")})
	if err := m.Lock(ctx); err != nil {
		return nil, err
	}
	if ttl, err := m.TTL(ctx); err != nil || ttl <= 0 {
		return nil, errors.Join(fmt.Errorf("TTL = %v, %v; want > 0", ttl, err), m.Unlock(ctx))
	}
	return m.Unlock, nil
}

// redTake takes a RedLock of name on c alone.
func redTake(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
	r := multilock.NewRedLock([]*lockkit.Client{c}, name)
	if err := r.Lock(ctx); err != nil {
		return nil, err
	}
	if r.Token() <= 0 {
		return nil, errors.Join(fmt.Errorf("Token = %d; want > 0", r.Token()), r.Unlock(ctx))
	}
	return func(ctx context.Context) error { return unlockSettled(ctx, r) }, nil
}

// unlockSettled unlocks r, calling Unlock again while its outcome is in
// doubt, as its docs ask: a RedLock's node timeout is a tenth of a short
// lease, which a loaded machine's scheduling may exceed.
func unlockSettled(ctx context.Context, r *multilock.RedLock) error {
	for {
		err := r.Unlock(ctx)
		if !core.InDoubt(err) || ctx.Err() != nil {
			return err
		}
	}
}

// semTake acquires the one permit of a semaphore.
func semTake(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
	s := semaphore.New(c, name, 1)
	p, err := s.Acquire(ctx, 1)
	if err != nil {
		return nil, err
	}
	hs, err := s.Holders(ctx)
	if err == nil && (len(hs) != 1 || hs[0].Token != p.Token()) {
		err = fmt.Errorf("Holders = %+v; want the one of token %d", hs, p.Token())
	}
	if err != nil {
		return nil, errors.Join(err, p.Release(ctx))
	}
	return p.Release, nil
}

// electTake campaigns for name's leadership and checks Leader.
func electTake(ctx context.Context, c *lockkit.Client, name string) (func(context.Context) error, error) {
	e := election.New(c, name)
	l, err := e.Campaign(ctx, "v")
	if err != nil {
		return nil, err
	}
	ld, err := e.Leader(ctx)
	if err == nil && ld.Term != l.Leader().Term {
		err = fmt.Errorf("Leader = %+v; want the term %d", ld, l.Leader().Term)
	}
	if err != nil {
		return nil, errors.Join(err, l.Resign(ctx))
	}
	return l.Resign, nil
}
