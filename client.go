package lockkit

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/notify"
	"github.com/lockkit/lockkit/watchdog"
)

// Client is what every lock is made from: a go-redis client, one
// [notify.Notifier] (one pub/sub connection, shared by every waiter) and
// one [watchdog.Watchdog] (one goroutine renewing every hold, one pipelined
// round trip per tick). Make one per Redis deployment and share it; close
// it when the locks made from it are no longer used.
//
// A Client is safe for concurrent use.
type Client struct {
	rc   redis.UniversalClient
	opts []Option
	err  error // invalid arguments, reported by Err and every lock
	nt   *notify.Notifier
	wd   *watchdog.Watchdog

	closeOnce sync.Once
	closed    chan struct{} // closed by Close

	traces atomic.Pointer[[]*Trace] // AddTrace's, copied on write

	bgMu   sync.Mutex
	bgN    int            // fs handed to Go and running; guarded by bgMu
	bgIdle chan struct{}  // made by Close to wait for bgN to reach 0, closed then; guarded by bgMu
	bgDone bool           // Close waited for them: Go no longer counts; guarded by bgMu
	bgFree []chan func()  // handovers of Go's goroutines waiting for an f (see work); guarded by bgMu
	bgAll  sync.WaitGroup // Go's goroutines, running or waiting
	idle   time.Duration  // how long Go's goroutines wait for an f; workIdle when 0 (tests set it)

	localMu sync.Mutex
	locals  map[any]any // see Locals; guarded by localMu
}

// New returns a Client of rc, which may be any go-redis client: a plain
// client, a Sentinel (failover) client, a Cluster client (one that reads
// from replicas too: every call runs at the lock's master) or a Ring
// ([WithReplicaAck] aside, which needs a master to ask). The user closes
// rc, after the Client: an rc closed first fails every call with an error
// matching redis.ErrClosed and ends every wait at once. opts are the
// defaults of every lock made from the Client (each lock's own options
// override them).
//
// New does no I/O and starts nothing: the pub/sub connection opens with the
// first wait and the watchdog's goroutine with the first hold. It cannot
// fail: a nil rc or a bad option makes [Client.Err] and every lock's
// methods return an error matching [ErrInvalid].
func New(rc redis.UniversalClient, opts ...Option) *Client {
	c := &Client{rc: rc, opts: slices.Clone(opts), closed: make(chan struct{})}
	if config.IsNil(rc) {
		c.err = fmt.Errorf("%w: client: redis client must not be nil", ErrInvalid)
		return c
	}
	o := config.Defaults(config.Client)
	config.Apply(&o, opts)
	if p := o.Problems(); len(p) > 0 {
		c.err = fmt.Errorf("%w: client: %s", ErrInvalid, p[0])
		return c
	}
	if l, ok := o.Logger.(*slog.Logger); ok {
		c.AddTrace(logTrace(l))
	}
	if t, ok := o.Trace.(*Trace); ok {
		c.AddTrace(t)
	}
	c.wd = watchdog.New(rc, watchdog.OnRound(c.renewed))
	// A broken pub/sub connection may mean a restart or failover that lost
	// the holds: verify them at once rather than at their next renewal.
	c.nt = notify.New(rc, notify.OnDisconnect(func(err error) {
		c.wd.Check()
		c.reconnected(err)
	}))
	return c
}

// Locals calls f, under a lock of c, with the values that the locks made
// from c share in memory, by key: what a lock kind keeps for all its locks
// of one Client (the reentrant lock's cohorts, say). f may add and delete
// entries; a kind uses keys of a type of its own. f must not block.
func (c *Client) Locals(f func(m map[any]any)) {
	c.localMu.Lock()
	defer c.localMu.Unlock()
	if c.locals == nil {
		c.locals = map[any]any{}
	}
	f(c.locals)
}

// Close stops the Client's watchdog and pub/sub connection. Holds still
// open are reported lost at once (their lost signal closes, with
// [ErrClosed]), waiting calls return an error matching [ErrClosed] (at
// once, but for those whose request is on its way: see below), and so
// does every later call on a lock of the Client, but for the releases,
// which still free what was held. A Lock whose acquire was on its way
// returns ErrClosed too, having given back what the acquire took; against
// a server that does not answer, within about a second if its ctx can end
// (one that cannot, such as context.Background(), waits for the reply),
// the give-back going on in the background (asked again, with more time,
// twice more at most if it gets no answer). (If Close comes at the very
// moment the reply does, Lock may instead return the hold, reported lost
// by the time Close has returned, its Token 0: Unlock it as usual.) It
// does not release holds in Redis (they end with their lease) and does not
// close the go-redis client. It waits for the clean-ups still running in the
// background (see [Client.Go]), those that calls woken by Close start
// while it waits included, which a server that stopped answering holds up
// until the go-redis client's own timeouts. Close is idempotent; on a
// Client not made by New (nil or a zero Client) it does nothing.
func (c *Client) Close() error {
	if c == nil || c.closed == nil {
		return nil
	}
	c.closeOnce.Do(func() {
		close(c.closed)
		var watchdog, notifier chan struct{}
		if c.err == nil {
			// The holds are reported lost at once: the watchdog's Close
			// does that first, and then waits for the renewals on their
			// way, which a server that does not answer holds up, as it
			// does the clean-ups waited for below. Likewise the waits
			// asleep until a release end at once: the notifier's Close
			// wakes them first, and then waits for its connections.
			watchdog, notifier = make(chan struct{}), make(chan struct{})
			go func() {
				defer close(watchdog)
				_ = c.wd.Close()
			}()
			go func() {
				defer close(notifier)
				_ = c.nt.Close()
			}()
		}
		c.bgMu.Lock()
		if c.bgN == 0 {
			c.bgDone = true
			c.bgMu.Unlock()
		} else {
			idle := make(chan struct{})
			c.bgIdle = idle
			c.bgMu.Unlock()
			<-idle
		}
		c.bgAll.Wait()
		if c.err != nil {
			return
		}
		<-notifier
		<-watchdog
	})
	return nil
}

// AddTrace adds t to the hooks every lock of c reports to (see [Trace]),
// after those added before and beside each lock's own [WithTrace]. A nil t
// is ignored. It is safe for concurrent use; events already under way may
// miss t.
func (c *Client) AddTrace(t *Trace) {
	if c == nil || t == nil {
		return
	}
	for {
		old := c.traces.Load()
		var next []*Trace
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, t)
		if c.traces.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Traces returns the hooks added with [Client.AddTrace] (and with
// [WithTrace] given to [New]), in order. Lock kinds report to them.
func (c *Client) Traces() []*Trace {
	if c == nil {
		return nil
	}
	if p := c.traces.Load(); p != nil {
		return *p
	}
	return nil
}

// Go runs f in a goroutine of the Client that Close waits for. Lock kinds
// use it for what outlives a call, and for the request of a call whose
// ctx can end (the call returns at the ctx's end, and the request goes
// on there): a request whose reply came after the caller's ctx ended is
// awaited there, and what it did is undone. Close waits for every f that
// Go started before Close returns; one started later (by a call that was
// under way when the Client closed, say) still runs in a goroutine of its
// own, so that the call is not held up past its ctx by a server that
// stopped answering, and ends by itself.
//
// A goroutine that has run its f waits up to 50 ms for another before it
// ends (Close ends the waiting ones at once), so that a busy Client does
// not start a goroutine, and grow its stack, per request, and an idle one
// keeps none.
func (c *Client) Go(f func()) {
	c.bgMu.Lock()
	if c.bgDone {
		c.bgMu.Unlock()
		go f()
		return
	}
	c.bgN++
	if n := len(c.bgFree); n > 0 {
		w := c.bgFree[n-1]
		c.bgFree = c.bgFree[:n-1]
		c.bgMu.Unlock()
		w <- f
		return
	}
	c.bgAll.Add(1)
	c.bgMu.Unlock()
	go c.work(f)
}

// workIdle is how long a goroutine of Go that has run its f waits for
// another before it ends.
const workIdle = 50 * time.Millisecond

// work runs f, and then each f that Go hands it while it waits, workIdle
// at the most each time, for more (see Go); it ends when it waited in
// vain, or when Close came.
func (c *Client) work(f func()) {
	defer c.bgAll.Done()
	wait := workIdle
	if c.idle > 0 {
		wait = c.idle
	}
	next := make(chan func(), 1) // Go's handover: never blocks
	idle := time.NewTimer(wait)
	defer idle.Stop()
	for {
		c.run(f)
		f = nil // what it holds is not kept while waiting
		c.bgMu.Lock()
		if c.bgDone || c.bgIdle != nil { // Close came
			c.bgMu.Unlock()
			return
		}
		c.bgFree = append(c.bgFree, next)
		c.bgMu.Unlock()
		idle.Reset(wait)
		select {
		case f = <-next:
			continue
		case <-idle.C:
		case <-c.closed:
		}
		c.bgMu.Lock()
		if i := slices.Index(c.bgFree, next); i >= 0 {
			c.bgFree = slices.Delete(c.bgFree, i, i+1)
			c.bgMu.Unlock()
			return
		}
		c.bgMu.Unlock()
		f = <-next // Go took it off the list meanwhile: its f is coming
	}
}

// run runs f, an f of Go, and counts it done however it ends (a
// runtime.Goexit in f, say).
func (c *Client) run(f func()) {
	defer c.goDone()
	f()
}

// goDone counts down an f of Go that has run, and lets Close go on when
// it was the last one Close waited for.
func (c *Client) goDone() {
	c.bgMu.Lock()
	c.bgN--
	idle := c.bgIdle
	if c.bgN > 0 || idle == nil {
		c.bgMu.Unlock()
		return
	}
	c.bgDone = true
	c.bgIdle = nil
	c.bgMu.Unlock()
	close(idle)
}

// Err returns nil while the Client is usable, an error matching
// [ErrInvalid] when New was given invalid arguments (or the Client was
// not made by New: nil or a zero Client), and [ErrClosed] once Close was
// called.
func (c *Client) Err() error {
	switch {
	case c == nil:
		return fmt.Errorf("%w: client must not be nil", ErrInvalid)
	case c.closed == nil:
		return fmt.Errorf("%w: client not made by New (zero value)", ErrInvalid)
	}
	if c.err != nil {
		return c.err
	}
	select {
	case <-c.closed:
		return ErrClosed
	default:
		return nil
	}
}

// Done returns a channel that is closed when Close is called; nil (a
// channel that never closes) for a nil Client.
func (c *Client) Done() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.closed
}

// Redis returns the go-redis client the Client was made with; nil for a
// nil Client.
func (c *Client) Redis() redis.UniversalClient {
	if c == nil {
		return nil
	}
	return c.rc
}

// Notifier returns the Client's notifier, for inspection: how many local
// waiters sleep on a lock's channel, say. Nil when Err reports ErrInvalid.
func (c *Client) Notifier() *notify.Notifier {
	if c == nil {
		return nil
	}
	return c.nt
}

// Watchdog returns the Client's watchdog, for inspection: how many holds it
// keeps alive. Nil when Err reports ErrInvalid.
func (c *Client) Watchdog() *watchdog.Watchdog {
	if c == nil {
		return nil
	}
	return c.wd
}

// Options returns the options New was given: the defaults of every lock
// made from the Client; none for a nil Client.
func (c *Client) Options() []Option {
	if c == nil {
		return nil
	}
	return slices.Clone(c.opts)
}
