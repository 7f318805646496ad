package reentrant

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
)

// A cohort is the process's side of a lock in cohort mode
// (WithLocalHandoff): one per Client, lock and options. It owns the hold
// in Redis through a plain reentrant lock value of its own (redis), and
// lends that hold to one Mutex at a time. The Mutexes that want it while
// another has it, or while it is being taken or given back in Redis, wait
// in a FIFO in memory; only the one that owns the local lock talks to
// Redis, so a process has at most one waiter there.
type cohort struct {
	key   cohortKey
	redis *Mutex // the process's owner in Redis
	// users counts the Lock calls under way and the holders. A cohort
	// whose users fell to 0 is dropped from its Client's locals and never
	// joined again (see tryJoin).
	users atomic.Int64

	mu sync.Mutex // guards what follows
	// busy is set while the local lock is taken: by holder, or by a Mutex
	// taking the hold in Redis or giving it back.
	busy bool
	// holder is the Mutex the hold is lent to, count its own hold count
	// and tenure its view of hold, the Redis hold (its token, lost signal
	// and context), lost when hold is (see watch). Nil when the hold is
	// lent to nobody.
	holder *Mutex
	count  int64
	tenure *core.Hold
	hold   *core.Hold
	// releasing is set while holder's Unlock gives the hold back in
	// Redis, and while the cohort settles that Unlock when its outcome was
	// unknown (see settle): holder neither re-enters nor unlocks
	// meanwhile.
	releasing bool
	// since is when the process took the hold from Redis; handoffs counts
	// the hand-overs since.
	since    time.Time
	handoffs int
	queue    []*cwaiter
	wake     []chan struct{} // closed by unlock, after mu is released
	// giving is set while the process gives a hold lost while lent back
	// in Redis (see dropLost, giveBack), with the local lock taken and no
	// holder: a TryLock waits for it rather than fail for want of a holder
	// that is gone.
	giving *lostRelease
}

// cwaiter is a Lock waiting in memory for its cohort's local lock.
type cwaiter struct {
	m     *Mutex
	ready chan struct{} // closed when granted
	// granted is set when the waiter has the local lock; held when with
	// it came the hold (a hand-over), reentry when that hold was m's own.
	// Guarded by the cohort's mu.
	granted, held, reentry bool
}

// cohortKey names a cohort: the Client, the lock's hash and the options
// the Redis hold is taken and lent with. Mutexes whose options differ are
// in different cohorts, which exclude each other as any two owners do.
type cohortKey struct {
	c                  *lockkit.Client
	base               string
	lease, wd, maxHold time.Duration
	info, noReentry    bool
	acks               int
	ackTimeout         time.Duration
	trace              any
	handoffs           int
	handoffHold        time.Duration
}

// join returns m's cohort, made if needed, counting m as one more user.
// The cohorts in use are kept in their Client (see lockkit.Client.Locals);
// a cohort is dropped when no Lock is under way and no Mutex holds through
// it. m remembers its cohort, so that while the cohort is in use joining
// it again takes no lock of the Client.
func join(m *Mutex) *cohort {
	if co := m.co.Load(); co != nil && co.tryJoin() {
		return co
	}
	cfg := &m.x.Cfg
	key := cohortKey{
		c: cfg.Client, base: cfg.Keys.Base, lease: cfg.Lease, wd: cfg.WatchdogTimeout,
		maxHold: cfg.MaxHold, info: cfg.HolderInfo, noReentry: cfg.NoReentry, acks: cfg.ReplicaAcks, ackTimeout: cfg.ReplicaAckTimeout,
		trace: cfg.Trace, handoffs: cfg.HandoffMax, handoffHold: cfg.HandoffHold,
	}
	var co *cohort
	cfg.Client.Locals(func(locals map[any]any) {
		co, _ = locals[key].(*cohort)
		if co == nil || !co.tryJoin() {
			// None, or one whose last user is leaving: its leave finds it
			// replaced and deletes nothing.
			opts := append(slices.Clone(m.opts), lockkit.Option(noHandoff))
			co = &cohort{key: key, redis: New(cfg.Client, cfg.Name, opts...)}
			// Its ForceUnlock (see forceLocal) tells the holder as the
			// cohort Mutexes' own do.
			co.redis.x.Forced = cfg.Client.Watchdog().Check
			co.users.Store(1)
			locals[key] = co
		}
	})
	m.co.Store(co)
	return co
}

// tryJoin counts one more user of co, unless it has none: then it is
// dropped, or about to be, and tryJoin reports false.
func (co *cohort) tryJoin() bool {
	for {
		n := co.users.Load()
		if n == 0 {
			return false
		}
		if co.users.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// leave undoes one join.
func (co *cohort) leave() {
	if co.users.Add(-1) > 0 {
		return
	}
	co.key.c.Locals(func(locals map[any]any) {
		if locals[co.key] == co {
			delete(locals, co.key)
		}
	})
}

// unlock releases co.mu, then wakes the waiters granted meanwhile.
func (co *cohort) unlock() {
	wake := co.wake
	co.wake = nil
	co.mu.Unlock()
	for _, ch := range wake {
		close(ch)
	}
}

// enter joins m's cohort and locks its mutex for a Lock or TryLock of m.
// When m's own hold is lost, it gives it back first and reports false,
// with the cohort left: the caller starts again, for a new hold (with or
// without re-entry), since m holds nothing now and its lost hold must
// not keep it out.
func (m *Mutex) enter(ctx context.Context) (*cohort, bool) {
	co := join(m)
	co.mu.Lock()
	_ = co.forgetLost(m)
	if co.holder == m && !co.releasing && co.caught() != nil {
		_ = co.giveBack(ctx)
		co.leave()
		return nil, false
	}
	return co, true
}

// lockLocal is Lock in cohort mode.
func (m *Mutex) lockLocal(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return core.NotObtained(m.x.Cfg.Name, err) // not even a re-entry
	}
	co, ok := m.enter(ctx)
	if !ok {
		return m.lockLocal(ctx)
	}
	if co.holder == m && !co.releasing && !m.x.Cfg.NoReentry {
		co.count++ // a re-entry, in memory
		co.unlock()
		co.leave()
		return nil
	}
	if !co.busy {
		co.busy = true
		co.mu.Unlock()
		return co.take(ctx, m)
	}
	w := &cwaiter{m: m, ready: make(chan struct{})}
	co.queue = append(co.queue, w)
	co.mu.Unlock()
	var cause error
	select {
	case <-w.ready:
	case <-ctx.Done():
		cause = ctx.Err()
	case <-m.x.Cfg.Client.Done():
		cause = lockkit.ErrClosed
	}
	co.mu.Lock()
	switch {
	case !w.granted:
		co.queue = slices.DeleteFunc(co.queue, func(x *cwaiter) bool { return x == w })
		co.mu.Unlock()
		co.leave()
		return core.NotObtained(m.x.Cfg.Name, cause)
	case w.held:
		// Handed over (or re-entered) before ctx ended, if it did: held.
		co.mu.Unlock()
		if w.reentry {
			co.leave()
		}
		return nil
	}
	co.mu.Unlock()
	if cause != nil {
		// The local lock came as ctx ended: pass it on.
		co.mu.Lock()
		co.passOn()
		co.unlock()
		co.leave()
		return core.NotObtained(m.x.Cfg.Name, cause)
	}
	return co.take(ctx, m)
}

// take takes the hold in Redis for m, which has the local lock.
func (co *cohort) take(ctx context.Context, m *Mutex) error {
	err := co.redis.Lock(ctx)
	co.mu.Lock()
	if err != nil {
		co.passOn()
		co.unlock()
		co.leave()
		return err
	}
	co.since, co.handoffs = time.Now(), 0
	co.lend(m)
	co.unlock()
	return nil
}

// tryLockLocal is TryLock in cohort mode.
func (m *Mutex) tryLockLocal(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, core.NotObtained(m.x.Cfg.Name, err)
	}
	co, ok := m.enter(ctx)
	if !ok {
		return m.tryLockLocal(ctx)
	}
	if co.holder != nil && co.holder != m && !co.releasing && co.caught() != nil {
		// The holder's hold is lost, and watch has yet to take the local
		// lock back from it (dropLost runs a moment after the loss): take
		// it back now, as dropLost would, lest the lost holder keep this
		// TryLock out.
		if g := co.takeBack(co.hold); g != nil {
			co.key.c.Go(func() { co.give(g) }) // Close waits for it
		}
	}
	if giving := co.giving; giving != nil {
		// The local lock was taken back from a lost holder, and the lost
		// hold is being given back in Redis: no Mutex holds. Try again once
		// it is given back (a round trip).
		co.mu.Unlock()
		co.leave()
		select {
		case <-giving.done:
		case <-ctx.Done():
			return false, core.NotObtained(m.x.Cfg.Name, ctx.Err())
		}
		return m.tryLockLocal(ctx)
	}
	if co.holder == m && !co.releasing && !m.x.Cfg.NoReentry {
		co.count++
		co.unlock()
		co.leave()
		return true, nil
	}
	if co.busy {
		// Another Mutex of the process holds or waits: no queue jumping.
		co.mu.Unlock()
		co.leave()
		return false, nil
	}
	co.busy = true
	co.mu.Unlock()
	ok, err := co.redis.TryLock(ctx)
	co.mu.Lock()
	if !ok {
		co.passOn()
		co.unlock()
		co.leave()
		return false, err
	}
	co.since, co.handoffs = time.Now(), 0
	co.lend(m)
	co.unlock()
	return true, nil
}

// notHeld returns the error of an Unlock that finds m holding nothing:
// ErrClosed once m's Client is closed, as every kind's, else ErrNotHeld.
func (m *Mutex) notHeld() error {
	if err := m.x.Cfg.Client.Err(); err != nil {
		return core.Op("unlock", m.x.Cfg.Name, err)
	}
	return core.NotHeld(m.x.Cfg.Name)
}

// unlockLocal is Unlock in cohort mode.
func (m *Mutex) unlockLocal(ctx context.Context) error {
	if err := m.x.CheckInput(ctx); err != nil {
		return err
	}
	if s := m.doubt.Load(); s != nil {
		if ok, err := m.settled(ctx, s); ok {
			return err
		}
	}
	co := m.held.Load()
	if co == nil {
		return m.notHeld()
	}
	co.mu.Lock()
	share := m.share.Load()
	if err := co.forgetLost(m); err != nil {
		co.mu.Unlock()
		if share != nil {
			share.given.wait(ctx)
		}
		return err
	}
	if co.holder != m || co.releasing {
		co.mu.Unlock()
		return m.notHeld()
	}
	if err := co.caught(); err != nil {
		_ = co.giveBack(ctx)
		return err
	}
	if co.count--; co.count > 0 {
		co.mu.Unlock()
		return nil
	}
	if len(co.queue) > 0 && co.handoffs < m.x.Cfg.HandoffMax && time.Since(co.since) < m.x.Cfg.HandoffHold &&
		co.hold.Err() == nil && co.redis.x.H.Current() == co.hold {
		// Hand the hold over, in memory.
		co.handoffs++
		co.endTenure()
		w := co.queue[0]
		co.queue = co.queue[1:]
		co.grant(w, true)
		co.lend(w.m)
		co.unlock()
		co.leave()
		return nil
	}
	co.releasing = true
	co.mu.Unlock()
	err := co.redis.Unlock(ctx)
	co.mu.Lock()
	if err != nil && !errors.Is(err, lockkit.ErrLost) {
		// The outcome is unknown: m holds until the cohort settles it, in
		// the background, and its next Unlock returns how it was settled.
		co.count = 1
		s := newSettlement(co)
		m.doubt.Store(s)
		co.mu.Unlock()
		co.key.c.Go(func() { co.settle(s) }) // Close waits for it
		return err
	}
	co.ended()
	return err
}

// ended ends the hold that an Unlock gave back to Redis: the tenure ends,
// lost if that Unlock found the hold gone (whether or not the tenure's
// following passed the loss on yet), the local waiters go on without it,
// co.mu is released and the Mutex leaves the cohort.
func (co *cohort) ended() {
	co.tenure.Catch(co.hold)
	co.endTenure()
	co.passOn()
	co.unlock()
	co.leave()
}

// giveBack drops the lost hold of co.holder: it gives it back in Redis
// (the release of a lost hold frees its key if it lingers), within ctx,
// and passes the local lock on; when Redis did not answer, it asks again
// in the background, and passes the local lock on once it answers (see
// giveLater). Called with co.mu held; returns with it released, and with
// the holder's join undone.
func (co *cohort) giveBack(ctx context.Context) error {
	co.endTenure()
	g := newLostRelease(co.hold)
	co.giving = g
	co.users.Add(1) // the give-back's join (see finish)
	co.mu.Unlock()
	over, err := co.tryGive(ctx, g)
	if over {
		co.finish(g)
	} else {
		co.key.c.Go(func() { co.giveLater(g) }) // Close waits for it
	}
	co.leave()
	return err
}

// grant gives w the local lock, with the hold when held. w has left the
// queue. co.mu held.
func (co *cohort) grant(w *cwaiter, held bool) {
	w.granted, w.held = true, held
	co.wake = append(co.wake, w.ready)
}

// passOn passes the local lock, without a hold in Redis, to the first
// waiter, or frees it when none waits. co.mu held.
func (co *cohort) passOn() {
	co.releasing, co.handoffs = false, 0
	if len(co.queue) == 0 {
		co.busy = false
		return
	}
	w := co.queue[0]
	co.queue = co.queue[1:]
	co.grant(w, false)
}

// lend lends the process's hold in Redis to m: a tenure of its own, lost
// when the hold is. A lost tenure that m still has (its Lock without
// re-entry waited behind it) is forgotten first, with its join. Other
// Locks of m waiting in the queue re-enter it (unless m does not
// re-enter). co.mu held.
func (co *cohort) lend(m *Mutex) {
	_ = co.forgetLost(m)
	co.holder, co.count, co.releasing = m, 1, false
	if h := co.redis.x.H.Current(); h != co.hold {
		co.hold = h
		co.watch(h)
	}
	co.tenure = core.Lend(co.hold) // lost already if the hold is
	m.slot.Set(co.tenure)
	m.held.Store(co)
	if m.x.Cfg.NoReentry {
		return
	}
	co.queue = slices.DeleteFunc(co.queue, func(w *cwaiter) bool {
		if w.m != m {
			return false
		}
		co.count++
		w.reentry = true
		co.grant(w, true)
		return true
	})
}

// watch makes the loss of hold, a hold the process took from Redis, the
// loss of the tenure it is lent as then (see catch), and take the local
// lock back from its Mutex (see dropLost): a lost holder must not keep
// the process's other Mutexes out until its Unlock, which a stuck holder
// never calls. Once per hold, not per hand-over. co.mu held.
func (co *cohort) watch(hold *core.Hold) {
	context.AfterFunc(co.redis.Context(context.Background()), func() {
		co.catch(hold)
		co.key.c.Go(func() { co.dropLost(hold) }) // Close waits for it
	})
}

// catch makes the current tenure lost if it is lent from hold and hold is
// lost. A tenure lent later catches the loss itself (see lend).
func (co *cohort) catch(hold *core.Hold) {
	co.mu.Lock()
	if co.hold == hold && co.tenure != nil {
		co.tenure.Catch(hold)
	}
	co.mu.Unlock()
}

// dropLost takes the local lock back from the Mutex that holds hold when
// hold is lost, so that the process's other Mutexes need not wait for its
// Unlock: it gives the lost hold back in Redis (freeing its key if it
// lingers, and reporting its end), asking again until Redis answers (see
// giveLater), and then passes the local lock on. The holder keeps its lost tenure,
// and its join of co (a lostShare), until its next call (see forgetLost),
// or, if it is never called again, until the garbage collector finds it
// unreachable: a lock value dropped after its loss does not keep the
// cohort in its Client. It does nothing when hold ended otherwise or is no
// longer lent, while the holder's own Unlock gives it back, or once the
// Client is closed: nothing can take the lock after Close, which leaves
// the hold in Redis to the holder's Unlock or its lease.
func (co *cohort) dropLost(hold *core.Hold) {
	co.mu.Lock()
	g := co.takeBack(hold)
	co.mu.Unlock()
	if g != nil {
		co.give(g)
	}
}

// takeBack takes the local lock back from the Mutex that holds hold, lost,
// for dropLost, and returns the release in Redis to make (see give); nil
// when there is nothing to take back. co.mu held.
func (co *cohort) takeBack(hold *core.Hold) *lostRelease {
	if co.hold != hold || hold.Err() == nil || co.holder == nil || co.releasing || co.key.c.Err() != nil {
		return nil
	}
	_ = co.caught() // the holder's tenure is lost with hold
	g := newLostRelease(hold)
	share := &lostShare{co: co, given: g}
	co.holder.share.Store(share)
	runtime.AddCleanup(co.holder, (*lostShare).giveBack, share)
	co.holder, co.tenure, co.count = nil, nil, 0
	co.giving = g
	co.users.Add(1) // the give-back's join (see finish): the holder's may go first
	return g
}

// give gives g's hold back in Redis, asking again until it is over (see
// giveLater), and then finishes it.
func (co *cohort) give(g *lostRelease) {
	ctx, cancel := core.Detached(context.Background())
	over, _ := co.tryGive(ctx, g)
	cancel()
	if !over {
		co.giveLater(g)
		return
	}
	co.finish(g)
}

// lostShare is the join of a cohort that a Mutex whose tenure was lost
// keeps (see dropLost), given back once, and the release in Redis of the
// hold it lost, which its Unlock waits for.
type lostShare struct {
	co    *cohort
	given *lostRelease
	once  sync.Once
}

// giveBack undoes the join, unless it was given back already.
func (s *lostShare) giveBack() { s.once.Do(s.co.leave) }

// forgetLost ends m's tenure that dropLost took the local lock back from,
// giving back m's join, and returns its loss; nil when m has no such
// tenure. co.mu held.
func (co *cohort) forgetLost(m *Mutex) error {
	t := m.slot.Current()
	if t == nil || co.holder == m || m.held.Load() != co {
		return nil
	}
	err := t.Err()
	if err == nil {
		return nil
	}
	m.slot.Set(nil)
	m.held.Store(nil)
	t.End()
	if s := m.share.Swap(nil); s != nil {
		s.giveBack()
	}
	return err
}

// caught returns the loss of the holder's tenure, which it catches from
// the Redis hold first: watch passes a loss on a moment later, on a
// goroutine of its own, and a re-entry or Unlock in memory must not count
// on a hold already lost.
// co.mu held, with a holder.
func (co *cohort) caught() error {
	co.tenure.Catch(co.hold)
	return co.tenure.Err()
}

// endTenure ends the holder's tenure: it holds nothing afterwards. co.mu
// held.
func (co *cohort) endTenure() {
	m := co.holder
	m.slot.Set(nil)
	m.held.Store(nil)
	co.tenure.End()
	co.holder, co.tenure, co.count = nil, nil, 0
}

// holdCountLocal is HoldCount in cohort mode: m's own count while the
// process holds the lock in Redis.
func (m *Mutex) holdCountLocal(ctx context.Context) (int, error) {
	if err := m.x.Check(ctx); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, core.Op("hold count", m.x.Cfg.Name, err) // as outside cohort mode
	}
	co := m.held.Load()
	if co == nil {
		return 0, nil
	}
	n, err := co.redis.HoldCount(ctx)
	if err != nil || n == 0 {
		return 0, err
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	if co.holder != m {
		return 0, nil
	}
	return int(co.count), nil
}
