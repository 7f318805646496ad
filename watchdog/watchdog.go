package watchdog

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// maxCallTimeout bounds one pipelined renewal round trip.
const maxCallTimeout = 5 * time.Second

// Causes passed to [Lease].OnLost besides a renewal's own error.
var (
	// ErrClosed is the cause given to the holds still registered when the
	// Watchdog is closed.
	ErrClosed = errors.New("watchdog: closed")
	// ErrLeaseEnded is the cause given when a lease without a Script (a
	// fixed lease) runs out.
	ErrLeaseEnded = errors.New("watchdog: fixed lease ended")
)

// New returns a Watchdog that renews holds through client. It does no I/O
// and starts nothing until a hold is registered; then one goroutine renews
// every due lease in one pipelined round trip per tick and exits when no
// hold is left. Close stops it.
func New(client redis.UniversalClient) *Watchdog {
	w := &Watchdog{client: client, holds: map[*Hold]struct{}{}, kick: make(chan struct{}, 1)}
	w.cond.L = &w.mu
	return w
}

// Lease says how to renew one hold.
type Lease struct {
	// Script renews the hold. It must return 1 when it renewed the lease and
	// 0 when the hold is gone. A nil Script makes a fixed lease: the hold is
	// never renewed and OnLost is called with [ErrLeaseEnded] when the
	// lease runs out.
	Script *redis.Script
	Keys   []string
	Args   []any
	// TTL is the lease the script sets; the hold is renewed every TTL/3.
	TTL time.Duration
	// OnLost is called at most once, from the watchdog's goroutine, when the
	// hold is found gone (cause nil) or renewals kept failing until the lease
	// lapsed (cause is the last error). It must not block.
	OnLost func(cause error)
}

// Watchdog renews the leases of one client's holds. Create it with [New];
// it is safe for concurrent use.
type Watchdog struct {
	client redis.UniversalClient
	kick   chan struct{} // wakes the goroutine to look at new holds

	mu      sync.Mutex
	cond    sync.Cond          // on mu; signalled when a renewal round ends
	holds   map[*Hold]struct{} // every hold not stopped; guarded by mu
	running bool               // the goroutine is running; guarded by mu
	closed  bool               // Close was called; guarded by mu
	exited  chan struct{}      // closed when the running goroutine returns; guarded by mu
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
	state    state
	inflight bool
	lease    Lease
	due      time.Time // next renewal
	expires  time.Time // when the lease lapses unless renewed
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
// sent; the first renewal is due at since + TTL/3 (for a fixed lease, the
// lease simply ends at since + TTL). On a closed Watchdog, Start calls
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
	w.mu.Unlock()
	w.wake()
}

// leaseFrom makes h's lease run from since: it lapses at since + TTL, and
// its next renewal is due a third of the way there (a fixed lease only
// ends). w.mu held.
func (h *Hold) leaseFrom(since time.Time) {
	h.expires = since.Add(h.lease.TTL)
	h.due = since.Add(h.lease.TTL / 3)
	if h.lease.Script == nil {
		h.due = h.expires
	}
}

// Close stops the Watchdog: it waits for a renewal in flight, stops the
// goroutine, and calls OnLost with [ErrClosed] for every hold still
// started, since nothing renews it any more. Later holds are reported lost
// at Start. Close is idempotent and does not close the client.
func (w *Watchdog) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	for w.anyInflight() {
		w.cond.Wait()
	}
	var lost []func(error)
	for h := range w.holds {
		if h.state == active || h.state == suspended {
			if f := h.lease.OnLost; f != nil {
				lost = append(lost, f)
			}
		}
		h.state = stopped
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
	return nil
}

// anyInflight reports whether a renewal is in flight. w.mu held.
func (w *Watchdog) anyInflight() bool {
	for h := range w.holds {
		if h.inflight {
			return true
		}
	}
	return false
}

// Renewed records that the lease of h was set anew at since (a re-entry
// extends it, say): it lapses at since + TTL, and its next renewal is due
// a third of the way there. It never moves the end of the lease earlier.
func (h *Hold) Renewed(since time.Time) {
	w := h.w
	w.mu.Lock()
	if (h.state == active || h.state == suspended) && since.Add(h.lease.TTL).After(h.expires) {
		h.leaseFrom(since)
	}
	w.mu.Unlock()
	w.wake()
}

// Suspend stops renewing h until Resume or Stop. It waits for a renewal of
// h that is in flight, so once it returns nothing will touch the lease.
func (h *Hold) Suspend() {
	w := h.w
	w.mu.Lock()
	defer w.mu.Unlock()
	for h.inflight {
		w.cond.Wait()
	}
	if h.state == active {
		h.state = suspended
	}
}

// Resume renews h again after Suspend, with the lease lapsing no earlier
// than it did before.
func (h *Hold) Resume() {
	w := h.w
	w.mu.Lock()
	if h.state == suspended {
		h.state = active
	}
	w.mu.Unlock()
	w.wake()
}

// Stop forgets h. Like Suspend it waits for a renewal in flight; afterwards
// h is never renewed again and its OnLost is not called. Stop is idempotent.
func (h *Hold) Stop() {
	w := h.w
	w.mu.Lock()
	for h.inflight {
		w.cond.Wait()
	}
	h.state = stopped
	delete(w.holds, h)
	w.mu.Unlock()
	w.wake()
}

// Check makes every renewed hold due at once, so that the next round
// verifies them all without waiting for their time: call it when the
// server may have lost what it held (a broken connection, a failover). A
// hold found gone is reported lost as usual. Check does not block.
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

// run renews due leases until no hold is left, then closes exited.
func (w *Watchdog) run(exited chan struct{}) {
	defer close(exited)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		w.mu.Lock()
		if len(w.holds) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		now := time.Now()
		var batch []*Hold
		var ended []func(error)
		var next time.Time
		for h := range w.holds {
			if h.state != active {
				continue
			}
			if h.lease.Script == nil {
				// A fixed lease: nothing to renew, only its end to report.
				if !now.Before(h.expires) {
					h.state = stopped
					delete(w.holds, h)
					if f := h.lease.OnLost; f != nil {
						ended = append(ended, f)
					}
				} else if next.IsZero() || h.expires.Before(next) {
					next = h.expires
				}
				continue
			}
			// Renew early what falls due within half a period, so holds
			// taken close together share a round trip.
			if !h.due.After(now.Add(h.lease.TTL / 6)) {
				h.inflight = true
				batch = append(batch, h)
			} else if next.IsZero() || h.due.Before(next) {
				next = h.due
			}
		}
		w.mu.Unlock()
		for _, f := range ended {
			f(ErrLeaseEnded)
		}
		if len(ended) > 0 {
			continue
		}

		if len(batch) == 0 {
			var fire <-chan time.Time
			if !next.IsZero() {
				if timer == nil {
					timer = time.NewTimer(time.Until(next))
				} else {
					timer.Reset(time.Until(next))
				}
				fire = timer.C
			}
			select {
			case <-w.kick:
			case <-fire:
			}
			continue
		}
		w.renew(batch)
	}
}

// renew sends one pipelined renewal for batch and records the outcome.
func (w *Watchdog) renew(batch []*Hold) {
	sent := time.Now()
	results := w.send(batch)

	var lost []func()
	w.mu.Lock()
	now := time.Now()
	for i, h := range batch {
		h.inflight = false
		if h.state != active {
			continue
		}
		renewed, err := results[i].renewed, results[i].err
		retry := min(h.lease.TTL/10, time.Second)
		switch {
		case err == nil && renewed:
			h.expires = sent.Add(h.lease.TTL)
			h.due = sent.Add(h.lease.TTL / 3)
		case err == nil || !now.Add(retry).Before(h.expires):
			// Gone, or failing so long that the lease lapses before the
			// next try: report it now rather than after the fact.
			h.state = stopped
			delete(w.holds, h)
			if f := h.lease.OnLost; f != nil {
				lost = append(lost, func() { f(err) })
			}
		default:
			// Transient failure: retry soon, well before the lease lapses.
			h.due = now.Add(retry)
		}
	}
	w.cond.Broadcast()
	w.mu.Unlock()
	for _, f := range lost {
		f()
	}
}

type result struct {
	renewed bool
	err     error
}

// send runs the renew scripts of batch in one pipeline, loading scripts the
// server does not know and trying those again.
func (w *Watchdog) send(batch []*Hold) []result {
	timeout := maxCallTimeout
	for _, h := range batch {
		timeout = min(timeout, max(h.lease.TTL/3, 10*time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	results := make([]result, len(batch))
	todo := make([]int, len(batch))
	for i := range todo {
		todo[i] = i
	}
	for try := 0; try < 2 && len(todo) > 0; try++ {
		pipe := w.client.Pipeline()
		cmds := make([]*redis.Cmd, len(todo))
		for j, i := range todo {
			l := batch[i].lease
			cmds[j] = l.Script.EvalSha(ctx, pipe, l.Keys, l.Args...)
		}
		_, _ = pipe.Exec(ctx)
		var again []int
		loaded := map[*redis.Script]error{}
		for j, i := range todo {
			n, err := cmds[j].Int64()
			if err != nil && redis.HasErrorPrefix(err, "NOSCRIPT") && try == 0 {
				s := batch[i].lease.Script
				lerr, seen := loaded[s]
				if !seen {
					lerr = s.Load(ctx, w.client).Err()
					loaded[s] = lerr
				}
				if lerr != nil {
					results[i] = result{err: lerr}
				} else {
					again = append(again, i)
				}
				continue
			}
			results[i] = result{renewed: err == nil && n == 1, err: err}
		}
		todo = again
	}
	return results
}
