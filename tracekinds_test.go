package lockkit_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
	"github.com/lockkit/lockkit/spin"
)

// tracedLock is one hold of any kind as the trace tests take it: a lock, a
// side of an rwlock, one permit of a semaphore, a candidate's leadership.
type tracedLock interface {
	Lock(context.Context) error
	Unlock(context.Context) error
	Name() string
	// Lost is closed when the hold taken by the last Lock is lost.
	Lost() <-chan struct{}
}

// traceKind is a kind whose events a Trace reports as LockInfo{Kind:
// kind, Read: read}.
type traceKind struct {
	kind string
	read bool
	// cohort is set for a reentrant lock in cohort mode
	// (reentrant.WithLocalHandoff), whose events are the process's hold
	// in Redis and its wait there, under its cohort's owner id: one per
	// hold and one per wait, but a new one for a Lock after the cohort
	// was dropped (no Mutex of it in use).
	cohort bool
	// new returns an owner of the lock name made from c, with opts.
	new func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock
	// blocker returns an owner of name that keeps new's owners waiting;
	// nil: another owner from new.
	blocker func(c *lockkit.Client, name string) tracedLock
}

// traceKinds are the kinds that report their holds to a Trace under their
// own name (a multilock.Mutex reports its members' only).
var traceKinds = []traceKind{
	{kind: "reentrant", new: locker(reentrant.New)},
	{kind: "reentrant", cohort: true, new: func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		return reentrant.New(c, name, append(opts, reentrant.WithLocalHandoff(4, time.Second))...)
	}},
	{kind: "fair", new: locker(fair.New)},
	{kind: "spin", new: locker(spin.New)},
	{kind: "rwlock", new: func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		return rwlock.New(c, name, opts...)
	}},
	{kind: "rwlock", read: true, new: func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		m := rwlock.New(c, name, opts...)
		return readSide{m.RLocker(), m}
	}, blocker: func(c *lockkit.Client, name string) tracedLock { return rwlock.New(c, name) }},
	{kind: "redlock", new: func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		return multilock.NewRedLock([]*lockkit.Client{c}, name, opts...)
	}},
	{kind: "semaphore", new: func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		return &permit{s: semaphore.New(c, name, 1, opts...)}
	}},
	{kind: "election", new: func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		return &candidate{e: election.New(c, name, opts...)}
	}},
}

// label names k in subtests.
func (k traceKind) label() string {
	switch {
	case k.read:
		return k.kind + "_read"
	case k.cohort:
		return k.kind + "_cohort"
	}
	return k.kind
}

// block returns an owner of name that keeps k's owners waiting.
func (k traceKind) block(c *lockkit.Client, name string) tracedLock {
	if k.blocker != nil {
		return k.blocker(c, name)
	}
	return k.new(c, name)
}

// locker adapts the New of an exclusive kind whose lock value has a Lost
// signal.
func locker[L tracedLock](newLock func(*lockkit.Client, string, ...lockkit.Option) L) func(*lockkit.Client, string, ...lockkit.Option) tracedLock {
	return func(c *lockkit.Client, name string, opts ...lockkit.Option) tracedLock {
		return newLock(c, name, opts...)
	}
}

// readSide is the read side of an rwlock, with its lost signal.
type readSide struct {
	lockkit.Locker
	m *rwlock.RWMutex
}

func (r readSide) Lost() <-chan struct{} { return r.m.RLost() }

// permit takes the one permit of a semaphore as a hold.
type permit struct {
	s *semaphore.Semaphore
	p *semaphore.Permits
}

func (p *permit) Lock(ctx context.Context) error {
	got, err := p.s.Acquire(ctx, 1)
	if err == nil {
		p.p = got
	}
	return err
}

func (p *permit) Unlock(ctx context.Context) error { return p.p.Release(ctx) }
func (p *permit) Lost() <-chan struct{}            { return p.p.Lost() }
func (p *permit) Name() string                     { return p.s.Name() }

// candidate takes an election's leadership as a hold.
type candidate struct {
	e *election.Election
	l *election.Leadership
}

func (c *candidate) Lock(ctx context.Context) error {
	l, err := c.e.Campaign(ctx, "v")
	if err == nil {
		c.l = l
	}
	return err
}

func (c *candidate) Unlock(ctx context.Context) error { return c.l.Resign(ctx) }
func (c *candidate) Lost() <-chan struct{}            { return c.l.Context().Done() }
func (c *candidate) Name() string                     { return c.e.Name() }

// traceEvent is one event a Trace reported.
type traceEvent struct {
	hook      string // "WaitStart", "WaitDone", "Acquired", "Released", "Lost"
	lock      lockkit.LockInfo
	token     int64
	err       error
	ended     bool // Released
	reentry   bool // Acquired
	contended bool // Acquired
	held      time.Duration
}

// traceLog records, in order, the lock events of the Traces it makes.
type traceLog struct {
	mu     sync.Mutex
	events []traceEvent
}

// trace returns hooks that record every lock event to l.
func (l *traceLog) trace() *lockkit.Trace {
	add := func(e traceEvent) {
		l.mu.Lock()
		l.events = append(l.events, e)
		l.mu.Unlock()
	}
	return &lockkit.Trace{
		WaitStart: func(i lockkit.WaitStartInfo) { add(traceEvent{hook: "WaitStart", lock: i.Lock}) },
		WaitDone: func(i lockkit.WaitDoneInfo) {
			add(traceEvent{hook: "WaitDone", lock: i.Lock, err: i.Err, held: i.Waited})
		},
		Acquired: func(i lockkit.AcquiredInfo) {
			add(traceEvent{hook: "Acquired", lock: i.Lock, token: i.Token, reentry: i.Reentry, contended: i.Contended})
		},
		Released: func(i lockkit.ReleasedInfo) {
			add(traceEvent{hook: "Released", lock: i.Lock, token: i.Token, err: i.Err, ended: i.Ended, held: i.Held})
		},
		Lost: func(i lockkit.LostInfo) {
			add(traceEvent{hook: "Lost", lock: i.Lock, token: i.Token, err: i.Err, held: i.Held})
		},
	}
}

// all returns a copy of the events recorded so far.
func (l *traceLog) all() []traceEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// hooks returns the hook names of the events recorded so far, in order.
func (l *traceLog) hooks() []string { return hooksOf(l.all()) }

// hooksOf returns the hook names of events, in order.
func hooksOf(events []traceEvent) []string {
	var names []string
	for _, e := range events {
		names = append(names, e.hook)
	}
	return names
}

// eachTraceKind runs test as a parallel subtest for each of traceKinds.
func eachTraceKind(t *testing.T, test func(t *testing.T, k traceKind)) {
	for _, k := range traceKinds {
		t.Run(k.label(), func(t *testing.T) {
			t.Parallel()
			test(t, k)
		})
	}
}

// vanish deletes every key of srv, as an operator's FLUSHDB does, and
// waits until m, which held a lock there, reported its hold lost and log
// got the Lost event.
func vanish(t *testing.T, srv *redistest.Server, m tracedLock, log *traceLog) {
	t.Helper()
	ctx := redistest.Ctx(t, redistest.Hang)
	if err := srv.Client(t).FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, m.Lost(), redistest.Hang, "the lost signal")
	redistest.Eventually(t, redistest.Hang, "Lost to be reported", func() bool {
		return slices.Contains(log.hooks(), "Lost")
	})
}

// lostAndReleased takes a lock of kind k on a server of its own, with a
// watchdog timeout of 300 ms and its events logged, has lose make its hold
// lost, and checks that its Unlock then returns ErrLost and that the events
// were Acquired, Lost and Released, in that order, besides the Lock's
// wait, if any: it returns the lock and those three events.
func lostAndReleased(t *testing.T, k traceKind, lose func(t *testing.T, srv *redistest.Server, m tracedLock, log *traceLog)) (tracedLock, []traceEvent) {
	t.Helper()
	srv, lc, name := redistest.OnServer(t)
	var log traceLog
	m := k.new(lc, name, lockkit.WithTrace(log.trace()), lockkit.WithWatchdogTimeout(300*time.Millisecond))
	redistest.MustLock(t, m)
	lose(t, srv, m, &log)
	redistest.WantErr(t, m.Unlock(redistest.Ctx(t, redistest.Hang)), lockkit.ErrLost)

	// The Lock may have waited: a RedLock round that took longer than the
	// short lease allows on a loaded machine is tried again.
	ev := slices.DeleteFunc(log.all(), func(e traceEvent) bool { return e.hook == "WaitStart" || e.hook == "WaitDone" })
	if got, want := hooksOf(ev), []string{"Acquired", "Lost", "Released"}; !slices.Equal(got, want) {
		t.Fatalf("events %v; want %v", log.hooks(), want)
	}
	return m, ev
}

// hooked starts a server and returns a lock of kind k on a Client of it
// whose go-redis client has hook, and whose own hooks log reports to.
func hooked(t *testing.T, k traceKind, hook redis.Hook, log *traceLog) tracedLock {
	t.Helper()
	rc := redistest.StartServer(t).HookedClient(t, hook)
	return k.new(redistest.Lockkit(t, rc, lockkit.WithTrace(log.trace())), redistest.Unique(t))
}
