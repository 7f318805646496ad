package core

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/notify"
)

// Attempt makes one try at a lock. It reports whether the lock was taken
// and how long the lock may stay taken without a release message: when it
// failed, the blocker's remaining lease; when it succeeded, the lease of
// the new hold. A negative wait means no bound; zero means try again at
// once. args are the waiter's (see Turn.Args), for the acquire script.
type Attempt func(ctx context.Context, args ...any) (acquired bool, wait time.Duration, err error)

// A Waiter is how a caller waits between attempts. Each call of Wait asks
// it for a fresh Turn.
type Waiter interface {
	Turn() Turn
}

// Turn is one Wait call's waiting state. Wait drives it:
//
//	if Eager: attempt
//	Join; Ready? attempt; loop { Sleep; attempt }; Leave
//
// Every attempt's wait is passed to Tried.
type Turn interface {
	// Eager reports whether to attempt before joining (an uncontended lock
	// then costs one round trip).
	Eager() bool
	// Args returns what the next attempt passes its acquire script about
	// the waiter; nil for nothing. The slice may be the turn's own: the
	// attempt reads it and does not keep it.
	Args() []any
	// Join gets ready to be woken (subscribes, say). It returns only once
	// a release sent after it returns will wake the turn.
	Join(ctx context.Context) error
	// Ready reports whether to attempt right after Join, so that a release
	// between the eager attempt and Join is not missed.
	Ready() bool
	// Tried records what an attempt said: whether it acquired, and its
	// wait.
	Tried(acquired bool, wait time.Duration)
	// Sleep blocks until it is worth trying again: a wake-up came, or the
	// last wait ran out. It returns ctx.Err() when ctx ends first.
	Sleep(ctx context.Context) error
	// Leave ends the turn; acquired says whether the lock was taken. It
	// passes on a wake-up the turn took and did not use.
	Leave(acquired bool)
	// Closed returns a channel closed when the waiter can wait no more
	// (its notifier, or its Client, closed); nil for never.
	Closed() <-chan struct{}
}

// Wait runs the wait loop: attempt, join (confirmed), attempt, then sleep
// until woken or the blocker's lease runs out, and attempt again, until the
// lock is taken or ctx ends. When ctx ends first it returns an error
// matching both ErrNotObtained and ctx.Err(). An attempt's Redis error is
// returned as is, but for a transient one (see Transient) once the caller
// waits: a restart or failover while a Lock waits, or while it subscribes
// to wait, is waited out, the attempts (or subscriptions) spaced from 10 ms
// to 1 s, and if ctx ends first the error joins the last one. A closed
// Client's error matches ErrClosed. The wait is reported to tr (nil: to
// nobody) once an attempt found the lock taken, or the turn sleeps behind
// others of its process: a turn that joins before its first attempt (see
// Turn.Eager) and takes the lock with it did not wait.
func Wait(ctx context.Context, tr *Tracer, name string, w Waiter, attempt Attempt) (err error) {
	if err := ctx.Err(); err != nil {
		return NotObtained(name, err)
	}
	t := w.Turn()
	acquired := false
	defer func() { t.Leave(acquired) }()
	var (
		waiting  bool  // joined: transient errors are waited out
		failures int   // transient errors in a row
		last     error // the last transient error
		begun    = time.Now()
		done     = noWait // reports the wait's end, once it began
		started  bool
	)
	// startWait marks the wait begun: the lock was not free, or the turn
	// sleeps behind others of its process. From then on a hold is
	// contended.
	startWait := func() {
		if !started {
			started = true
			ctx, done = tr.waitStart(ctx, begun)
		}
	}
	defer func() { done(err) }()
	try := func() (bool, error) {
		ok, wait, err := attempt(ctx, t.Args()...)
		if err != nil && waiting && Transient(err) && ctxDone(ctx) == nil {
			last = err
			t.Tried(false, transientRetry.Bound(failures))
			failures++
			startWait()
			return false, nil
		}
		if err != nil {
			return false, CtxError(ctx, name, err)
		}
		failures = 0
		t.Tried(ok, wait)
		acquired = ok
		if !ok {
			startWait()
		}
		return ok, nil
	}
	if t.Eager() {
		if ok, err := try(); ok || err != nil {
			return err
		}
	}
	waiting = true
	if ok, err := join(ctx, name, t, try); ok || err != nil {
		return err
	}
	if t.Ready() {
		if ok, err := try(); ok || err != nil {
			return err
		}
	}
	for {
		startWait()
		if err := t.Sleep(ctx); err != nil {
			return NotObtained(name, errors.Join(err, last))
		}
		if ok, err := try(); ok || err != nil {
			return err
		}
	}
}

// join joins t, the wait's turn, waiting out transient errors (see
// Transient) as the attempts after it do: a subscription that fails while
// the server restarts is tried again, from 10 ms to 1 s apart, until ctx
// ends or t is closed (ErrClosed, at once). A turn with a heartbeat (see
// Queue) attempts (try) at least every heartbeat until it has joined, so
// that its place in the queue does not lapse while it cannot be woken:
// between subscriptions that failed, and while one is not confirmed (a
// server that accepts the connection and does not answer). It reports
// whether such an attempt took the lock, and returns the error that ends
// the wait.
func join(ctx context.Context, name string, t Turn, try func() (bool, error)) (bool, error) {
	var beat time.Duration
	if hb, ok := t.(heartbeater); ok {
		beat = hb.heartbeat()
	}
	var last error // the last transient error
	for failures := 0; ; failures++ {
		jctx, cancel := ctx, context.CancelFunc(func() {})
		if beat > 0 {
			jctx, cancel = context.WithTimeout(ctx, beat)
		}
		err := t.Join(jctx)
		timedOut := jctx.Err() != nil
		cancel()
		if err == nil {
			return false, nil
		}
		if cerr := ctxDone(ctx); cerr != nil {
			// The subscribe was cut short by the deadline: report the
			// deadline, not the network error it caused.
			return false, NotObtained(name, errors.Join(cerr, last))
		}
		switch {
		case timedOut:
			// Not confirmed within a heartbeat: attempt, and ask again.
		case !Transient(err):
			return false, NotObtained(name, err)
		default:
			last = err
			pause := transientRetry.Bound(failures)
			if beat > 0 {
				pause = min(pause, beat)
			}
			if err := sleep(ctx, pause, t.Closed()); err != nil {
				return false, NotObtained(name, errors.Join(err, last))
			}
		}
		if beat > 0 {
			if ok, err := try(); ok || err != nil {
				return ok, err
			}
		}
	}
}

// heartbeater is a Turn whose waiter must attempt at least every
// heartbeat (0: no bound), woken or not, subscribed or not.
type heartbeater interface {
	heartbeat() time.Duration
}

// PubSub waits for release messages on one channel of a notifier. Within
// a process the waiters form a FIFO: a newcomer does not attempt while
// others of its process wait (no barging, so hand-offs go in arrival
// order and waits stay short), only the head of the FIFO keeps a timer for
// the holder's lease, and the others sleep until woken.
//
// With PassOn set, a release wakes one process, not every process that
// waits: each attempt tells the acquire script the notifier's id and how
// many of the process's waiters there are (Args), so that a refused
// attempt registers the process as waiting, and the process sleeps on a
// channel of its own (see OwnChannel). A release wakes the process
// registered longest ago; PassOn hands a wake-up that the process can no
// longer use to the next (see notify.PassOn).
type PubSub struct {
	Notifier *notify.Notifier
	// Channel is the channel the waiters sleep on.
	Channel string
	PassOn  func()
}

// OwnChannel returns the channel of lock channel ch on which a release
// wakes the process of notifier n alone.
func OwnChannel(ch string, n *notify.Notifier) string { return ch + ":" + n.ID() }

// Turn implements Waiter.
func (p PubSub) Turn() Turn { return &pubsubTurn{p: p, ch: p.Channel} }

type pubsubTurn struct {
	p  PubSub
	ch string // the channel the turn sleeps on
	w  *notify.Waiter
	// args holds what Args returns; id is the notifier's id as an any,
	// converted once per turn.
	args [2]any
	id   any
	// alone is set when the last attempt told the script that the turn was
	// its process's only waiter: if it took the lock, the process no longer
	// waits in Redis.
	alone bool
}

// Eager reports whether to attempt before joining: when no waiter of the
// process waits, unless the channel is still subscribed (a Lock that soon
// follows another's wait, say). Joining then costs nothing, and the
// attempt after it is the only one: one round trip fewer when the lock is
// taken.
func (t *pubsubTurn) Eager() bool {
	n := t.p.Notifier
	return n.Waiters(t.ch) == 0 && !n.Subscribed(t.ch)
}

// Args returns the notifier's id and the waiters of the process: '0' when
// the turn has not joined them, '1' when it is the only one, '2' when
// others wait too (see internal/lua/mutex/acquire.lua). The slice is the
// turn's own, valid until the next call.
func (t *pubsubTurn) Args() []any {
	if t.p.PassOn == nil {
		return nil
	}
	var waiters any = "0"
	t.alone = false
	if t.w != nil {
		waiters = "2"
		if t.p.Notifier.Waiters(t.ch) <= 1 {
			waiters, t.alone = "1", true
		}
	}
	if t.id == nil {
		t.id = t.p.Notifier.ID()
	}
	t.args = [2]any{t.id, waiters}
	return t.args[:]
}

// TryArgs returns what a try that will not wait (a TryLock) passes its
// acquire script: the notifier's id, so that it may take a lock kept for
// its process, and 'n', so that a refusal registers nothing (see
// internal/lua/mutex/acquire.lua); nil without PassOn.
func (p PubSub) TryArgs() []any {
	if p.PassOn == nil {
		return nil
	}
	return []any{p.Notifier.ID(), "n"}
}

func (t *pubsubTurn) Join(ctx context.Context) (err error) {
	var opts []notify.SubscribeOption
	if t.p.PassOn != nil {
		opts = append(opts, notify.PassOn(t.p.PassOn))
	}
	t.w, err = t.p.Notifier.Subscribe(ctx, t.ch, opts...)
	return err
}

func (t *pubsubTurn) Ready() bool { return t.w.Head() }

func (t *pubsubTurn) Tried(_ bool, wait time.Duration) {
	if t.w != nil {
		// Acquired or not, the next head times its wait by this lease.
		t.w.SetDeadline(wait)
	}
}

func (t *pubsubTurn) Sleep(ctx context.Context) error { return t.w.WaitTurn(ctx) }

func (t *pubsubTurn) Closed() <-chan struct{} { return t.p.Notifier.Done() }

func (t *pubsubTurn) Leave(acquired bool) {
	if t.w == nil {
		return
	}
	if acquired && t.alone {
		// The process no longer waits in Redis: a waiter that joined while
		// the attempt was on its way tries now, and so registers.
		t.w.Handoff()
		return
	}
	t.w.Leave(acquired)
}

// Queue waits for a fair lock's turn: the waiter has a channel of its own
// (Channel), and a release wakes only the first waiter in the lock's queue
// in Redis. Every attempt renews the waiter's place there, so Sleep never
// lasts longer than Heartbeat, even without a wake-up, and neither does
// the pause between subscriptions that failed (see join).
type Queue struct {
	Notifier  *notify.Notifier
	Channel   string
	Heartbeat time.Duration
	// Contended is set when a Lock took more than one attempt, and cleared
	// when one got the lock with its first: after a contended Lock the next
	// one joins before its first attempt, which saves the attempt that
	// would otherwise follow the subscription. Nil: always attempt first.
	Contended *atomic.Bool
}

// Turn implements Waiter.
func (q Queue) Turn() Turn { return &queueTurn{q: q, wait: -1} }

type queueTurn struct {
	q        Queue
	w        *notify.Waiter
	wait     time.Duration
	attempts int // attempts made by this turn
}

func (t *queueTurn) Eager() bool { return t.q.Contended == nil || !t.q.Contended.Load() }
func (t *queueTurn) Args() []any { return nil }

func (t *queueTurn) Join(ctx context.Context) (err error) {
	t.w, err = t.q.Notifier.Subscribe(ctx, t.q.Channel)
	return err
}

func (t *queueTurn) Ready() bool { return true }

func (t *queueTurn) heartbeat() time.Duration { return t.q.Heartbeat }

func (t *queueTurn) Closed() <-chan struct{} { return t.q.Notifier.Done() }

// Tried records the wait, and on success whether the Lock was contended:
// it took more than one attempt.
func (t *queueTurn) Tried(acquired bool, wait time.Duration) {
	t.wait = wait
	t.attempts++
	if acquired && t.q.Contended != nil {
		t.q.Contended.Store(t.attempts > 1)
	}
}

// Sleep waits for a wake-up, for the bound the last attempt returned (a
// lease or the deadline of the waiter ahead, plus a millisecond so that
// the server has passed it), but never longer than the heartbeat, so that
// the waiter's place is renewed well before it could lapse.
func (t *queueTurn) Sleep(ctx context.Context) error {
	d := t.q.Heartbeat
	if t.wait >= 0 && t.wait < d {
		d = t.wait + time.Millisecond
	}
	return t.w.Wait(ctx, d)
}

// Leave passes a wake-up the turn acted on to another goroutine waiting as
// the same owner (it then re-enters); with none, it is dropped.
func (t *queueTurn) Leave(bool) {
	if t.w != nil {
		t.w.Leave(false)
	}
}

// Backoff waits by sleeping: after the n-th refused attempt (n = 0, 1, …)
// for a duration drawn uniformly from [0, min(Cap, Floor·2ⁿ)) ("full
// jitter"), so that callers who collide spread out, and never past the
// holder's remaining lease. It sends nothing while it sleeps and needs no
// pub/sub. 0 < Floor <= Cap.
type Backoff struct {
	Floor, Cap time.Duration
	// Multiplier is how much the bound grows after each refused attempt;
	// below 1 (the zero value) means 2.
	Multiplier float64
	// Exact makes every sleep the bound itself instead of a random
	// duration below it (no jitter).
	Exact bool
	// Done, if not nil, ends every sleep when it is closed (the Client's
	// Done, say); Sleep then returns ErrClosed.
	Done <-chan struct{}
	// Jitter returns a random int64 in [0, n); nil means rand.Int64N.
	Jitter func(n int64) int64
}

// Turn implements Waiter.
func (b Backoff) Turn() Turn { return &backoffTurn{b: b, wait: -1} }

type backoffTurn struct {
	b    Backoff
	n    int           // refused attempts so far
	wait time.Duration // the last attempt's wait
}

func (t *backoffTurn) Eager() bool                      { return true }
func (t *backoffTurn) Args() []any                      { return nil }
func (t *backoffTurn) Join(context.Context) error       { return nil }
func (t *backoffTurn) Ready() bool                      { return false }
func (t *backoffTurn) Leave(bool)                       {}
func (t *backoffTurn) Tried(_ bool, wait time.Duration) { t.wait = wait }
func (t *backoffTurn) Closed() <-chan struct{}          { return t.b.Done }

// Bound returns min(Cap, Floor·Multiplierⁿ) after n refused attempts. It
// costs the same whatever n, so a wait of millions of attempts (a
// multiplier of 1, say) does not slow down as it goes on.
func (b Backoff) Bound(n int) time.Duration {
	m := b.Multiplier
	if m < 1 {
		m = 2
	}
	if b.Floor <= 0 || b.Floor >= b.Cap {
		return min(b.Floor, b.Cap)
	}
	d := float64(b.Floor) * math.Pow(m, float64(n))
	if d >= float64(b.Cap) { // +Inf included
		return b.Cap
	}
	return time.Duration(d)
}

func (t *backoffTurn) Sleep(ctx context.Context) error {
	jitter := t.b.Jitter
	if jitter == nil {
		jitter = rand.Int64N
	}
	d := t.b.Bound(t.n)
	if !t.b.Exact {
		d = time.Duration(jitter(int64(d)))
	}
	t.n++
	if t.wait >= 0 {
		// Look again as soon as the holder's lease has run out (plus a
		// millisecond for the server to expire the key).
		d = min(d, t.wait+time.Millisecond)
	}
	return sleep(ctx, d, t.b.Done)
}

// sleep waits for d, or until ctx ends (returning ctx.Err()) or done is
// closed (returning ErrClosed).
func sleep(ctx context.Context, d time.Duration, done <-chan struct{}) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-done:
		return lockkit.ErrClosed
	}
}
