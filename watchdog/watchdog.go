package watchdog

import (
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// maxCallTimeout bounds the context of one pipelined renewal round trip.
	maxCallTimeout = 5 * time.Second
	// maxMargin and minMargin bound how long before the end of a lease, as
	// the watchdog's clock sees it, a hold whose renewal is not confirmed
	// is reported lost: a twentieth of the TTL, clamped to this range.
	maxMargin = 100 * time.Millisecond
	minMargin = time.Millisecond
)

// Causes passed to [Lease].OnLost besides a renewal's own error.
var (
	// ErrClosed is the cause given to the holds still registered when the
	// Watchdog is closed.
	ErrClosed = errors.New("watchdog: closed")
	// ErrLeaseEnded is the cause given when a lease without a Script (a
	// fixed lease) runs out.
	ErrLeaseEnded = errors.New("watchdog: fixed lease ended")
	// ErrNotRenewed is the cause given when the lease of a renewed hold is
	// about to lapse and no renewal since the last one was confirmed: the
	// server is silent or slow, or every renewal failed. When a renewal
	// failed, the cause wraps its error as well.
	ErrNotRenewed = errors.New("watchdog: lease about to lapse with no renewal confirmed")
	// ErrMaxHold is the cause given when a hold with a [Lease.MaxHold]
	// reaches the end of its last lease: it was held that long, and its
	// renewals stopped.
	ErrMaxHold = errors.New("watchdog: held for its maximum time")
)

// New returns a Watchdog that renews holds through client. It does no I/O
// and starts nothing until a hold is registered; then one goroutine keeps
// the time, and each batch of due renewals is sent from a goroutine of its
// own, one pipelined round trip per shard, so that the loop never waits
// for the network. Starting and stopping a hold wakes that goroutine only
// when the hold falls due before the time it sleeps until, so a hold
// taken and released costs no goroutine switch. The goroutine exits about
// 100 ms after the last hold was stopped, if no other came meanwhile.
// Close stops it at once. A nil Option is ignored.
func New(client redis.UniversalClient, opts ...Option) *Watchdog {
	w := &Watchdog{client: client, holds: map[*Hold]struct{}{}, kick: make(chan struct{}, 1), timer: time.NewTimer(time.Hour), done: make(chan struct{})}
	w.timer.Stop()
	w.cond.L = &w.mu
	for _, o := range opts {
		if o != nil {
			o(w)
		}
	}
	return w
}

// Option configures a Watchdog.
type Option func(*Watchdog)

// Round is what one renewal round trip to one shard did.
type Round struct {
	// Holds is how many holds it renewed or tried to.
	Holds int
	// Renewed, Retry and Gone count the holds whose lease was renewed
	// (for a Fixed lease: verified, found still there), whose renewal
	// failed and is tried again, and that were found gone.
	// A hold stopped or given up (reported lost) while its renewal was on
	// its way counts in none of them.
	Renewed, Retry, Gone int
	// Took is how long the round trip took.
	Took time.Duration
	// Err is the first renewal error, if any: also that of a hold given
	// up meanwhile, so that a failed round trip never reads as a good one.
	Err error
}

// OnRound makes the Watchdog call f after each renewal round trip, one
// per shard, from the goroutine that sent it. f must not block, nor call
// [Watchdog.Close], which waits for the round trips in flight.
func OnRound(f func(Round)) Option { return func(w *Watchdog) { w.onRound = f } }

// Lease says how to renew one hold.
type Lease struct {
	// Script renews the hold. It must return 1 when it renewed the lease and
	// 0 when the hold is gone, and must change nothing when the hold is not
	// the one it names (it is fenced by the hold's token): a renewal may
	// reach the server after the hold was suspended or stopped. A nil
	// Script makes a fixed lease: the hold is never renewed and OnLost is
	// called with [ErrLeaseEnded] a margin before the lease runs out (see
	// [Margin]), as for a renewed lease whose renewals failed.
	Script *redis.Script
	// Fixed makes a fixed lease that Script verifies: the hold is never
	// renewed, and its lease ends as with a nil Script, but Script is sent
	// as often as a renewal would be (and at once on [Watchdog.Check]) to
	// tell whether the hold is still there, so that a hold the server lost
	// (a restart, a failover) is reported lost then, not at its lease's
	// end. Script must then change nothing, and return 1 when the hold is
	// there and 0 when it is gone. MaxHold does not apply.
	Fixed bool
	// Keys are the script's keys. The first one places the hold on a shard
	// of a Cluster.
	Keys []string
	Args []any
	// TTL is the lease the script sets; the hold is renewed (or, Fixed,
	// verified) every TTL/3.
	TTL time.Duration
	// MaxHold, when positive, bounds how long a renewed hold is kept: no
	// renewal is sent once MaxHold has passed since Start's since, so the
	// lease then ends at most TTL later, and OnLost is called with
	// [ErrMaxHold]. Zero: renewed until stopped.
	MaxHold time.Duration
	// OnLost is called at most once, from a goroutine of the watchdog, when
	// the hold is found gone (cause nil) or when its lease is about to
	// lapse with no renewal confirmed (cause matches [ErrNotRenewed]); with
	// [ErrClosed], from the goroutine that called [Watchdog.Close] (or
	// Start, on a closed Watchdog). It must not block, nor call
	// [Watchdog.Close], which waits for it.
	OnLost func(cause error)
}

// Watchdog renews the leases of one client's holds. Create it with [New];
// it is safe for concurrent use.
type Watchdog struct {
	client  redis.UniversalClient
	onRound func(Round)   // nil: none
	kick    chan struct{} // wakes the goroutine to look at the holds again

	mu      sync.Mutex
	cond    sync.Cond          // on mu; signalled when sending drops to 0
	holds   map[*Hold]struct{} // every hold not stopped; guarded by mu
	running bool               // the goroutine is running; guarded by mu
	closed  bool               // Close was called; guarded by mu
	done    chan struct{}      // closed when the first Close has done its work
	exited  chan struct{}      // closed when the running goroutine returns; guarded by mu
	sending int                // batches of renewals awaiting replies; guarded by mu
	flights uint64             // renewals sent so far, naming each; guarded by mu
	// next is when the running goroutine looks at the holds again: when
	// timer fires (see arm); zero when it waits to be woken. Guarded by mu.
	next  time.Time
	timer *time.Timer
	// rounds counts the goroutine's looks at the holds. Guarded by mu.
	rounds uint64
}

type state int

const (
	pending state = iota
	active
	suspended
	stopped
)

// Hold is one lock hold known to the watchdog.
type Hold struct {
	w *Watchdog

	// Guarded by w.mu.
	state state
	lease Lease
	// flight names the renewal of h awaiting its reply, 0 if none. A reply
	// for any other is stale (h was stopped, or given up, since) and is
	// ignored.
	flight  uint64
	due     time.Time // next renewal
	expires time.Time // the server's lease lasts at least until then: send time of the last confirmed renewal + TTL
	lastErr error     // the error of the last renewal, if it failed
	stopAt  time.Time // no renewal from then on (Lease.MaxHold); zero if none
}

// capped reports whether h is renewed no more: its next renewal falls at
// or after its Lease.MaxHold. w.mu held.
func (h *Hold) capped() bool {
	return !h.stopAt.IsZero() && !h.due.Before(h.stopAt)
}

// Margin returns how long before the end of a lease of ttl its hold is
// reported lost when no renewal was confirmed, or a fixed lease ends:
// ttl/20, at most 100 ms and at least 1 ms. It covers a timer that fires
// late and a local clock that runs slower than the server's. A hold whose
// acquire was answered later than ttl - Margin(ttl) after it was sent is as
// good as lost.
func Margin(ttl time.Duration) time.Duration {
	return max(min(ttl/20, maxMargin), minMargin)
}

// deadline returns when h is reported lost unless a renewal is confirmed
// first: a margin before its lease ends, renewed or fixed (see Margin).
// w.mu held.
func (h *Hold) deadline() time.Time {
	return h.expires.Add(-Margin(h.lease.TTL))
}

// Register adds a hold that is not renewed until [Hold.Start]. Registering
// before the acquire is sent starts the goroutine early, off the path of
// the acquire's reply; Stop the hold if the acquire fails. On a closed
// Watchdog the hold is stopped already, and its Start reports it lost.
func (w *Watchdog) Register() *Hold {
	h := &Hold{w: w}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		h.state = stopped
		return h
	}
	w.holds[h] = struct{}{}
	if !w.running {
		w.running = true
		w.exited = make(chan struct{})
		go w.run(w.exited)
	}
	return h
}

// Start begins renewing h. since is when the acquire that set the lease was
// sent; the first renewal is due at since + TTL/3, and the hold is reported
// lost a margin before since + TTL unless a renewal was confirmed by then
// (a fixed lease simply ends then). On a closed Watchdog, Start calls
// l.OnLost with [ErrClosed] instead.
func (h *Hold) Start(l Lease, since time.Time) {
	w := h.w
	w.mu.Lock()
	if h.state == stopped {
		closed := w.closed
		w.mu.Unlock()
		if closed && l.OnLost != nil {
			l.OnLost(ErrClosed)
		}
		return
	}
	h.lease = l
	h.state = active
	h.leaseFrom(since)
	if l.MaxHold > 0 && l.Script != nil && !l.Fixed {
		h.stopAt = since.Add(l.MaxHold)
	}
	// The goroutine looks at h in time if it wakes before h's first
	// renewal and deadline; else it must look again now.
	first := h.due
	if d := h.deadline(); d.Before(first) {
		first = d
	}
	late := w.next.IsZero() || first.Before(w.next)
	w.mu.Unlock()
	if late {
		w.wake()
	}
}

// leaseFrom makes h's lease run from since: it lapses at since + TTL, and
// its next renewal (or verification) is due a third of the way there (a
// fixed lease without a Script only ends). w.mu held.
func (h *Hold) leaseFrom(since time.Time) {
	h.expires = since.Add(h.lease.TTL)
	h.due = since.Add(h.lease.TTL / 3)
	if h.lease.Script == nil {
		h.due = h.expires
	}
}

// extend records that h's lease was set anew at since, unless it already
// runs longer. w.mu held.
func (h *Hold) extend(since time.Time) {
	if since.Add(h.lease.TTL).After(h.expires) {
		h.leaseFrom(since)
	}
}

// lose marks h lost and returns its OnLost call with cause, or nil. w.mu
// held.
func (h *Hold) lose(cause error) func() {
	h.state = stopped
	h.flight = 0
	delete(h.w.holds, h)
	if f := h.lease.OnLost; f != nil {
		return func() { f(cause) }
	}
	return nil
}

// Close stops the Watchdog: it stops the goroutine, calls OnLost with
// [ErrClosed] for every hold still started, suspended ones included, since
// nothing renews it any more, and waits for the renewals still in flight
// to return, so that it leaves no goroutine behind. go-redis bounds such
// a round trip by the client's timeouts, not by a context, unless the client was created with
// ContextTimeoutEnabled: against a silent server Close may wait for the
// client's ReadTimeout (5 s by default). Later holds are reported lost at
// Start. Close is idempotent, and every call returns only once the work
// above is done; it does not close the client.
func (w *Watchdog) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return nil
	}
	defer close(w.done)
	w.closed = true
	var lost []func(error)
	for h := range w.holds {
		if h.state == active || h.state == suspended {
			if f := h.lease.OnLost; f != nil {
				lost = append(lost, f)
			}
		}
		h.state = stopped
		h.flight = 0
	}
	clear(w.holds)
	exited := w.exited
	w.mu.Unlock()
	w.wake()
	if exited != nil {
		<-exited
	}
	for _, f := range lost {
		f(ErrClosed)
	}
	w.mu.Lock()
	for w.sending > 0 {
		w.cond.Wait()
	}
	w.mu.Unlock()
	return nil
}

// Renewed records that the lease of h was set anew at since (a re-entry
// extends it, say): it lapses at since + TTL, and its next renewal is due
// a third of the way there. It never moves the end of the lease earlier.
func (h *Hold) Renewed(since time.Time) {
	w := h.w
	w.mu.Lock()
	if h.state == active || h.state == suspended {
		h.extend(since)
	}
	w.mu.Unlock()
	// extend only moves the hold's times later: the goroutine wakes in
	// time.
}

// Suspend stops renewing h until Resume or Stop, and stops its loss being
// reported, except by Close: a hold still suspended then is reported lost
// with [ErrClosed], since a release that fails cannot Resume it any more.
// It does not wait for a renewal of h in flight: the script,
// fenced by the hold's token, changes nothing on the server once the hold
// is released, and its reply, if it comes while h is suspended, is only
// used to extend the lease h is known to have (a reply that finds the hold
// gone, maybe released, is ignored).
func (h *Hold) Suspend() {
	w := h.w
	w.mu.Lock()
	defer w.mu.Unlock()
	if h.state == active {
		h.state = suspended
	}
}

// Resume renews h again after Suspend, with the lease lapsing no earlier
// than it did before. A hold whose lease is about to lapse by then is
// reported lost at once.
func (h *Hold) Resume() {
	w := h.w
	w.mu.Lock()
	if h.state == suspended {
		h.state = active
	}
	w.mu.Unlock()
	w.wake()
}

// Stop forgets h: it is never renewed again and its OnLost is not called.
// Like Suspend it does not wait for a renewal in flight. Stop does not
// wake the goroutine: what it would do at h's time, it finds undone. When
// h was the last hold, the goroutine looks again within idleExit, and
// exits if none came meanwhile. Stop is idempotent.
func (h *Hold) Stop() {
	w := h.w
	w.mu.Lock()
	h.state = stopped
	h.flight = 0
	delete(w.holds, h)
	if len(w.holds) == 0 && w.running && !w.closed {
		if at := time.Now().Add(idleExit); w.next.IsZero() || w.next.After(at) {
			w.arm(at)
		}
	}
	w.mu.Unlock()
}

// Check makes every hold with a Script due at once, renewed or fixed, so
// that the next round verifies them all without waiting for their time:
// call it when the server may have lost what it held (a broken connection,
// a failover). A hold found gone is reported lost as usual; one with a
// renewal in flight is verified by that renewal. Check does not block.
func (w *Watchdog) Check() {
	w.mu.Lock()
	now := time.Now()
	for h := range w.holds {
		if h.lease.Script != nil && h.due.After(now) {
			h.due = now
		}
	}
	w.mu.Unlock()
	w.wake()
}

// Len returns the number of holds registered and not stopped.
func (w *Watchdog) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.holds)
}

func (w *Watchdog) wake() {
	select {
	case w.kick <- struct{}{}:
	default:
	}
}
