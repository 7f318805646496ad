package failover_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// probe is one kind's lock held across the failover, and another owner's
// Lock blocked on it.
type probe struct {
	k      kind
	name   string
	holder lockkit.Locker
	lost   []<-chan struct{} // the holder's lost signals
	tokens []int64           // the holder's tokens
	// releasing is set before the holder's first Unlock call.
	releasing atomic.Bool
	waiter    lockkit.Locker
	got       chan waited
	started   time.Time // when the blocked Lock was called
	// seen checks that the kind's watcher saw the waiter hold the lock;
	// nil for a kind without one.
	seen func(t *testing.T, l lockkit.Locker)
}

// waited is how the blocked Lock ended.
type waited struct {
	err error
	// holderDone is set when, as the Lock returned, the holder had begun
	// to release the lock or been told it lost it.
	holderDone bool
}

// hold takes the lock called name as a holder of kind k on the Client
// holders, and starts a Lock of another owner on the Client waiters, which
// it returns once that Lock has found the lock taken and is waiting.
func hold(t *testing.T, k kind, holders, waiters *lockkit.Client, name string) *probe {
	t.Helper()
	p := &probe{k: k, name: name, holder: k.holder(holders, name), got: make(chan waited, 1)}
	if err := p.holder.Lock(redistest.Ctx(t, callTimeout)); err != nil {
		t.Fatalf("%s: holder's Lock: %v", k.name, err)
	}
	p.lost, p.tokens = redistest.LostSignals(p.holder), redistest.Tokens(p.holder)
	if k.watch != nil {
		p.seen = k.watch(t, waiters, name)
	}

	var once sync.Once
	waiting := make(chan struct{})
	p.waiter = k.waiter(waiters, name, lockkit.WithTrace(&lockkit.Trace{
		WaitStart: func(lockkit.WaitStartInfo) { once.Do(func() { close(waiting) }) },
	}))
	// The Lock must outlast everything the test may do before the release
	// (the failover, then the retried TryLock and Unlock), so that it is
	// the wake-up that is checked, once the lock is free, and not how
	// long the failover took.
	ctx := redistest.Ctx(t, waiterBound+2*settleBound+wakeUpBound)
	p.started = time.Now()
	go func() {
		err := p.waiter.Lock(ctx)
		p.got <- waited{err: err, holderDone: p.releasing.Load() || redistest.AnyClosed(p.lost)}
	}()
	select {
	case <-waiting:
	case w := <-p.got:
		t.Fatalf("%s: the other owner's Lock returned %v while the lock was held", k.name, w.err)
	case <-time.After(callTimeout):
		t.Fatalf("%s: the other owner's Lock did not start waiting within %v", k.name, callTimeout)
	}
	return p
}

// check checks the contract once the failover has settled.
func (p *probe) check(t *testing.T, waiters *lockkit.Client) {
	// Another owner gets the lock only if the holder was told it lost it.
	others := waiters
	if p.k.apart {
		others = redistest.Lockkit(t, waiters.Redis())
	}
	third := p.k.waiter(others, p.name)
	took := tryLockAfter(t, third)
	survived := !redistest.AnyClosed(p.lost)
	if took {
		if survived {
			t.Fatalf("another owner holds the lock after the failover and its holder was not told")
		}
		retry(t, "the other owner's Unlock", third.Unlock)
	}

	// The holder's Unlock releases the lock, or reports its loss.
	p.releasing.Store(true)
	var unlockErr error
	retry(t, "the holder's Unlock", func(ctx context.Context) error {
		unlockErr = p.holder.Unlock(ctx)
		if errors.Is(unlockErr, lockkit.ErrLost) {
			return nil
		}
		return unlockErr
	})
	switch {
	case unlockErr != nil && !redistest.AnyClosed(p.lost):
		t.Fatalf("holder's Unlock = %v, yet its lost signal is open", unlockErr)
	case unlockErr == nil && !survived:
		t.Fatalf("holder's Unlock succeeded after its hold was reported lost")
	}
	t.Logf("hold survived the failover: %v", unlockErr == nil)
	released := time.Now()

	// The blocked Lock returns now that the lock is free.
	w := redistest.Receive(t, p.got, wakeUpBound, "the blocked Lock to return once the lock is free")
	if w.err != nil {
		t.Fatalf("the Lock blocked across the failover, released %v after it was called, ended %v after the release: %v",
			released.Sub(p.started).Round(time.Millisecond), time.Since(released).Round(time.Millisecond), w.err)
	}
	if !w.holderDone {
		t.Fatalf("the other owner got the lock while its holder neither released it nor was told it lost it")
	}
	for i, tok := range redistest.Tokens(p.waiter) {
		if tok <= p.tokens[i] {
			t.Errorf("lock %s: token %d after the failover, not above the holder's %d", redistest.Parts(p.waiter)[i].Name(), tok, p.tokens[i])
		}
	}
	if p.seen != nil {
		p.seen(t, p.waiter)
	}
	retry(t, "the other owner's Unlock", func(ctx context.Context) error { return p.waiter.Unlock(ctx) })
}

// tryLockAfter runs TryLock of l, another owner than the holder, until it
// answers after the failover (see retry), and reports whether it took the
// lock.
func tryLockAfter(t *testing.T, l lockkit.Locker) bool {
	t.Helper()
	var took bool
	retry(t, "another owner's TryLock after the failover", func(ctx context.Context) error {
		ok, err := l.TryLock(ctx)
		took = ok
		return err
	})
	return took
}
