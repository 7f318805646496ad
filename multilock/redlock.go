package multilock

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/watchdog"
)

var (
	//go:embed acquire.lua
	acquireLua    string
	acquireScript = redis.NewScript(acquireLua)

	//go:embed release.lua
	releaseLua    string
	releaseScript = redis.NewScript(releaseLua)

	//go:embed raise.lua
	raiseLua    string
	raiseScript = redis.NewScript(raiseLua)
)

// releaseTimeout is the least time Unlock gives a node that holds the lock
// to answer; its node timeout applies if that is longer.
const releaseTimeout = time.Second

// errValidityEnded is the cause given when a fixed-lease hold's validity
// time runs out.
var errValidityEnded = errors.New("validity time ended")

// RedLock is a lock over N independent Redis masters (the Redlock
// algorithm): it is held while a majority of them, N/2+1, hold it for the
// same owner, so it survives the loss of up to (N-1)/2 masters, and no
// failover can hand it to a second owner. See the package documentation for
// what it does and does not guarantee.
//
// Each RedLock is one owner. Locking it again while it is held re-enters
// without talking to Redis (the count lives in the value), and any
// goroutine may Unlock it. A RedLock is safe for concurrent use.
type RedLock struct {
	name        string
	err         error // invalid arguments, reported by every method
	nodes       []node
	keys        []string // lock hash and fence counter, the same on every node
	owner       string
	ttl         time.Duration
	nodeTimeout time.Duration
	drift       time.Duration
	quorum      int

	// op serialises rounds and releases, so that the hold stays in step
	// with the nodes; it guards hold.count.
	op sync.Mutex

	mu   sync.Mutex // guards hold
	hold *redHold   // the current hold, lost or not; nil when nothing is held
}

var _ Locker = (*RedLock)(nil)

// node is one of the masters.
type node struct {
	client redis.UniversalClient
	wd     *watchdog.Watchdog // renews holds on this node; nil with a fixed lease
}

// NewRedLock returns the lock name over the independent masters that
// clients talk to, for a new owner. Use an odd number of masters (3 or 5)
// that fail independently; replicas of one another do not count. It does
// no I/O and cannot fail: invalid arguments (no client, a nil or repeated
// client, an empty name, a bad option) make every method return an error
// matching [ErrInvalid].
func NewRedLock(clients []redis.UniversalClient, name string, opts ...RedLockOption) *RedLock {
	o := defaultRedOptions()
	for _, opt := range opts {
		opt(&o)
	}
	r := &RedLock{name: name}
	if r.err = validateClients(clients); r.err != nil {
		return r
	}
	if r.err = o.Validate(clients[0], name); r.err != nil {
		return r
	}
	keys := internal.NewKeys(o.Prefix, name)
	r.keys = []string{keys.Lock, keys.Fence}
	r.owner = o.Owner
	r.ttl = o.TTL()
	r.nodeTimeout = o.nodeTimeoutOrDefault()
	r.drift = o.drift()
	r.quorum = len(clients)/2 + 1
	for _, c := range clients {
		n := node{client: c}
		if o.Watched() {
			n.wd = watchdog.For(c)
		}
		r.nodes = append(r.nodes, n)
	}
	return r
}

func validateClients(clients []redis.UniversalClient) error {
	if len(clients) == 0 {
		return internal.Invalid("redlock: no clients")
	}
	seen := map[redis.UniversalClient]int{}
	addrs := map[string]int{}
	for i, c := range clients {
		if internal.IsNil(c) {
			return internal.Invalid("redlock: client %d is nil", i)
		}
		if j, dup := seen[c]; dup {
			return internal.Invalid("redlock: clients %d and %d are the same client", j, i)
		}
		seen[c] = i
		if rc, ok := c.(*redis.Client); ok {
			addr := rc.Options().Addr
			if j, dup := addrs[addr]; dup {
				return internal.Invalid("redlock: clients %d and %d both talk to %s", j, i, addr)
			}
			addrs[addr] = i
		}
	}
	return nil
}

// Lock locks r. It tries every node at once, each for at most the node
// timeout ([WithNodeTimeout]); it holds the lock when a majority granted it
// and the time that took, plus the drift allowance, left some of the lease
// (the validity time). Otherwise it releases every node it may have taken,
// sleeps for a short random time (never past the blocking holder's lease)
// and tries again, until ctx ends. If r holds the lock already, Lock
// re-enters at once.
//
// When ctx ends first, the error matches both [ErrNotObtained] and
// ctx.Err(), and r holds nothing it did not hold before. If the last round
// failed because fewer than a majority of nodes answered, the error also
// matches [ErrQuorum] and says how many answered. Lock waits through node
// outages like it waits for a busy lock; use [RedLock.TryLock] to fail fast.
func (r *RedLock) Lock(ctx context.Context) error {
	if r.err != nil {
		return r.err
	}
	b := internal.NewBackoff(retryFloor, retryCap)
	var last error // why the last round failed, beyond the lock being busy
	for {
		if err := ctx.Err(); err != nil {
			return notObtained(r.name, err, last)
		}
		ok, wait, err := r.attempt(ctx)
		if ok {
			return nil
		}
		if ctx.Err() != nil {
			// The round was cut short; the one before says more.
			return notObtained(r.name, ctx.Err(), last)
		}
		last = err
		if wait >= 0 {
			wait += time.Millisecond // let the nodes expire the key first
		}
		if err := b.Sleep(ctx, wait); err != nil {
			return notObtained(r.name, err, last)
		}
	}
}

// TryLock makes one round over the nodes, without waiting, and reports
// whether r now holds the lock; it re-enters when r holds it already. It
// returns false and nil when other owners hold the lock; false and an error
// matching [ErrQuorum] when fewer than a majority of nodes answered (or took
// the hold's fencing token); and
// false and an error matching [ErrNotObtained] when a majority granted the
// lock too slowly for any validity time to be left.
func (r *RedLock) TryLock(ctx context.Context) (bool, error) {
	if r.err != nil {
		return false, r.err
	}
	ok, _, err := r.attempt(ctx)
	return ok, err
}

// notObtained is the error of a wait for name that ended because of cause,
// with the last failure that was not just a busy lock.
func notObtained(name string, cause, last error) error {
	err := internal.NotObtained(name, cause)
	if last != nil {
		err = fmt.Errorf("%w (last failure: %w)", err, last)
	}
	return err
}

// nodeResult is what one node answered in a round.
type nodeResult struct {
	sent    time.Time
	granted bool  // the node holds the lock for us
	token   int64 // the node's token, when granted
	refused bool  // another owner holds it on this node
	pttl    int64 // the other owner's remaining lease in ms, when refused
	err     error // no answer: the outcome is unknown
	raised  bool  // the node's counter was brought up to the hold's token
	wh      *watchdog.Hold
}

// attempt makes one round. On success r holds the lock; otherwise nothing
// is left taken, wait bounds the sleep before the next round (negative: no
// bound), and err says why, unless the lock was simply busy.
func (r *RedLock) attempt(ctx context.Context) (ok bool, wait time.Duration, err error) {
	r.op.Lock()
	defer r.op.Unlock()
	if h := r.current(); h != nil {
		if h.Err() == nil {
			h.count++
			return true, 0, nil
		}
		// Lost: forget it; the round below replaces what is left of it.
		r.end(h)
		r.setHold(nil)
	}

	start := time.Now()
	res := r.acquireAll(ctx)
	granted, answered := 0, 0
	var firstErr error
	wait = -1
	for _, x := range res {
		switch {
		case x.granted:
			granted++
			answered++
		case x.refused:
			answered++
			if x.pttl >= 0 && (wait < 0 || time.Duration(x.pttl)*time.Millisecond < wait) {
				wait = time.Duration(x.pttl) * time.Millisecond
			}
		case firstErr == nil:
			firstErr = x.err
		}
	}
	raised := -1 // not tried
	if granted >= r.quorum && r.valid(start) {
		token := int64(0)
		for _, x := range res {
			if x.granted {
				token = max(token, x.token)
			}
		}
		raised = r.raise(ctx, res, token)
		if raised >= r.quorum && r.valid(start) {
			r.begin(res, token, start)
			return true, 0, nil
		}
	}
	r.abandon(ctx, res)
	switch {
	case answered < r.quorum:
		return false, wait, fmt.Errorf("%w: %q: %d of %d nodes answered, %d needed; %w",
			ErrQuorum, r.name, answered, len(r.nodes), r.quorum, firstErr)
	case raised >= 0 && raised < r.quorum:
		return false, wait, fmt.Errorf("%w: %q: a quorum granted it, but only %d of %d nodes "+
			"took its fencing token, %d needed", ErrQuorum, r.name, raised, len(r.nodes), r.quorum)
	case granted >= r.quorum:
		return false, wait, fmt.Errorf("%w: %q: a quorum granted it, but too late: "+
			"%v of its %v lease went by (drift allowance %v)",
			ErrNotObtained, r.name, time.Since(start).Round(time.Millisecond), r.ttl, r.drift)
	}
	return false, wait, nil
}

// valid reports whether a hold whose round began at start has validity
// time left: lease − elapsed − drift allowance > 0.
func (r *RedLock) valid(start time.Time) bool {
	return r.ttl-time.Since(start)-r.drift > 0
}

// acquireAll asks every node at once to take the lock.
func (r *RedLock) acquireAll(ctx context.Context) []nodeResult {
	res := make([]nodeResult, len(r.nodes))
	var wg sync.WaitGroup
	for i := range r.nodes {
		wg.Go(func() { res[i] = r.acquireNode(ctx, i) })
	}
	wg.Wait()
	return res
}

func (r *RedLock) acquireNode(ctx context.Context, i int) nodeResult {
	var x nodeResult
	n := r.nodes[i]
	if n.wd != nil {
		// Registered before the acquire is sent, as the watchdog asks.
		x.wh = n.wd.Register()
	}
	nctx, cancel := context.WithTimeout(ctx, r.nodeTimeout)
	defer cancel()
	x.sent = time.Now()
	v, err := acquireScript.Run(nctx, n.client, r.keys, r.owner, r.ttl.Milliseconds()).Int64Slice()
	if err == nil && len(v) != 2 {
		err = errors.New("unexpected reply from acquire script")
	}
	switch {
	case err != nil && ctx.Err() == nil && nctx.Err() != nil:
		x.err = fmt.Errorf("node %d: no answer within %v", i, r.nodeTimeout)
	case err != nil:
		x.err = fmt.Errorf("node %d: %w", i, err)
	case v[0] == 1:
		x.granted, x.token = true, v[1]
	default:
		x.refused, x.pttl = true, v[1]
	}
	return x
}

// raise brings the fencing counter of every granting node whose token is
// below token up to it, and returns how many granting nodes now have a
// counter at token or above. A node whose hold vanished meanwhile no longer
// counts as granting.
func (r *RedLock) raise(ctx context.Context, res []nodeResult, token int64) int {
	var wg sync.WaitGroup
	for i := range res {
		x := &res[i]
		if !x.granted {
			continue
		}
		if x.token == token {
			x.raised = true
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, r.nodeTimeout)
			defer cancel()
			n, err := raiseScript.Run(ctx, r.nodes[i].client, r.keys, r.owner, x.token, token).Int64()
			switch {
			case err != nil:
				// Still held, as far as we know, but not raised.
			case n == 1:
				x.raised = true
			default:
				x.granted = false
			}
		})
	}
	wg.Wait()
	raised := 0
	for _, x := range res {
		if x.granted && x.raised {
			raised++
		}
	}
	return raised
}

// abandon undoes a failed round: it stops the watchdog registrations and
// frees every node that granted the lock or did not answer, on a ctx that
// outlives the caller's by up to the node timeout. Failures are ignored:
// such holds are not renewed and end with their lease.
func (r *RedLock) abandon(ctx context.Context, res []nodeResult) {
	ctx = context.WithoutCancel(ctx)
	var wg sync.WaitGroup
	for i, x := range res {
		if x.wh != nil {
			x.wh.Stop()
		}
		if x.refused {
			continue
		}
		token := int64(0)
		if x.granted {
			token = x.token
		}
		wg.Go(func() { _, _ = r.releaseNode(ctx, i, token, r.nodeTimeout) })
	}
	wg.Wait()
}

// releaseNode frees the hold with token on node i, or with token 0 any
// hold of this owner there, waiting for the node for up to timeout. It
// reports whether the hold was there.
func (r *RedLock) releaseNode(ctx context.Context, i int, token int64, timeout time.Duration) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	arg := ""
	if token != 0 {
		arg = strconv.FormatInt(token, 10)
	}
	n, err := releaseScript.Run(ctx, r.nodes[i].client, r.keys[:1], r.owner, arg).Int64()
	if err != nil {
		return false, fmt.Errorf("node %d: %w", i, err)
	}
	return n == 1, nil
}
