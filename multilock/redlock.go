package multilock

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// Defaults of a RedLock's options.
const (
	// DefaultDriftFactor is the share of the lease set aside for clock
	// drift between the client and the nodes (plus 2 ms); see
	// [WithDriftFactor].
	DefaultDriftFactor = config.DefaultDriftFactor
	// MaxNodeTimeout caps the default node timeout; see [WithNodeTimeout].
	MaxNodeTimeout = config.MaxNodeTimeout
)

// WithNodeTimeout bounds every request a RedLock sends to one node (to
// take, renew the fencing counter of, release or undo its part of a hold),
// so that a slow or dead node costs at most d per request. It should be
// small next to the lease. d must be positive. It applies to a RedLock
// only, and not as a Client default. Default: a tenth of the lease, at
// most 50 ms ([MaxNodeTimeout]).
//
// The bound is a context deadline: a go-redis client honours it on the
// socket only with redis.Options.ContextTimeoutEnabled set, and otherwise
// waits for a node that stopped answering up to its own ReadTimeout (3 s by
// default; DialTimeout, 5 s, while it opens a connection). Set it on the
// nodes' clients. A node that refuses connections fails fast either way.
func WithNodeTimeout(d time.Duration) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithNodeTimeout", false, config.RedLock) {
			return
		}
		if d <= 0 {
			o.Fail("WithNodeTimeout", "timeout must be positive, got %v", d)
			return
		}
		o.NodeTimeout = d
	}
}

// WithDriftFactor sets the share of the lease that is assumed lost to
// clocks running at different rates on the client and the nodes: a hold
// counts as valid for lease − acquisition time − (lease·f + 2 ms). Raise
// it for hosts whose clocks may be slewed heavily. f must be in [0, 0.5).
// It applies to a RedLock only, and not as a Client default. Default: 0.01
// ([DefaultDriftFactor]).
func WithDriftFactor(f float64) lockkit.Option {
	return func(o *config.Options) {
		if !o.For("WithDriftFactor", false, config.RedLock) {
			return
		}
		if !(f >= 0 && f < 0.5) {
			o.Fail("WithDriftFactor", "factor must be in [0, 0.5), got %v", f)
			return
		}
		o.DriftFactor = f
	}
}

// RedLock is a lock over N independent Redis masters (the Redlock
// algorithm): it is held while a majority of them, N/2+1, hold it for the
// same owner, so it survives the loss of up to (N-1)/2 masters, and no
// failover can hand it to a second owner. See the package documentation
// for what it does and does not guarantee.
//
// Each RedLock is one owner, as with [lockkit.WithOwner] several values
// can be: locking it again while it is held re-enters without talking to
// Redis, and any goroutine may Unlock it. On each node its part of the
// hold is an ordinary hold of the engine, renewed by that node's Client's
// watchdog and released with the same retry-safe, fenced release as every
// other lock kind.
//
// A RedLock is safe for concurrent use. Use it through the pointer
// NewRedLock returns; a zero RedLock is not usable (its methods return
// [lockkit.ErrInvalid]).
type RedLock struct {
	b           core.Base // node 0's: the name, the options, New's error
	nodes       []*node
	keys        []string // the KEYS of every node script, the same on every node
	quorum      int
	nodeTimeout time.Duration
	drift       time.Duration
	ownOwner    bool // the owner id was minted for this value
	waiter      core.Backoff

	// op serialises rounds and unlocks, so that the hold stays in step
	// with the nodes; it guards the hold's count and ending state.
	op sync.Mutex

	hold *redHold  // the current hold, lost or not; nil when none. Guarded by op.
	held core.Slot // hold's core part, for Token and Lost

	// retry is the outcome of an Unlock in doubt that a Lock settled
	// before it took a new hold: the next Unlock, that Unlock's retry,
	// returns it. Guarded by op.
	retry *error
}

var _ lockkit.Locker = (*RedLock)(nil)

// node is one master: its Client and this value's holder there.
type node struct {
	i   int
	cfg core.Config
	h   *core.Holder
}

// NewRedLock returns the lock name over the independent masters that the
// clients talk to, for a new owner. Use an odd number of masters (3 or 5)
// that fail independently; replicas of one another do not count. The
// shared options [lockkit.WithLease], [lockkit.WithWatchdogTimeout],
// [lockkit.WithOwner] and [lockkit.WithPrefix] apply to every node, as do
// [WithNodeTimeout] and [WithDriftFactor]. Defaults the Clients were made
// with apply too, and must agree between them.
//
// It does no I/O and cannot fail: invalid arguments (no client, a nil or
// repeated client, two clients of one server, an empty name, a bad
// option) make every method return an error matching [lockkit.ErrInvalid].
func NewRedLock(clients []*lockkit.Client, name string, opts ...lockkit.Option) *RedLock {
	r := &RedLock{}
	if err := checkClients(clients); err != nil {
		r.b = core.Base{Cfg: core.Config{Name: name}, Err: core.Invalid("%s %q: %v", config.RedLock, name, err)}
		return r
	}
	r.b = core.NewBase(clients[0], config.RedLock, name, opts)
	if r.b.Err != nil {
		return r
	}
	first := r.b.Cfg
	keys := first.Keys
	r.keys = []string{keys.Base, keys.Fence, keys.Released}
	r.quorum = len(clients)/2 + 1
	r.nodeTimeout = first.NodeTimeout
	if r.nodeTimeout <= 0 {
		r.nodeTimeout = min(first.TTL()/10, MaxNodeTimeout)
	}
	r.drift = time.Duration(float64(first.TTL())*first.DriftFactor) + 2*time.Millisecond
	r.ownOwner = first.OwnOwner
	r.waiter = core.Backoff{Floor: first.BackoffFloor, Cap: first.BackoffCap, Done: clients[0].Done()}
	for i, c := range clients {
		cfg := first
		if i > 0 {
			ci, err := core.Resolve(c, config.RedLock, name, opts)
			if err != nil {
				r.b.Err = fmt.Errorf("client %d: %w", i, err)
				return r
			}
			if ci.TTL() != first.TTL() || ci.Watched() != first.Watched() || ci.Prefix != first.Prefix {
				r.b.Err = core.Invalid("%s %q: client %d's defaults (lease, watchdog timeout or prefix) differ from client 0's", config.RedLock, name, i)
				return r
			}
			cfg.Client = c
		}
		// The engine would undo an acquire whose reply was lost within
		// core.CleanupTimeout; the RedLock does it itself, within the node
		// timeout (see settle), so that a stalled node costs no more.
		cfg.OwnOwner = false
		n := &node{i: i, cfg: cfg}
		n.h = core.NewHolder(core.HashLock(&n.cfg, noChannel))
		r.nodes = append(r.nodes, n)
	}
	return r
}

// checkClients checks the list of a RedLock's clients: at least one, none
// nil, and no server twice.
func checkClients(clients []*lockkit.Client) error {
	if len(clients) == 0 {
		return errors.New("no clients")
	}
	seen := map[*lockkit.Client]int{}
	rcs := map[redis.UniversalClient]int{}
	addrs := map[string]int{}
	for i, c := range clients {
		if c == nil {
			return fmt.Errorf("client %d is nil", i)
		}
		if j, dup := seen[c]; dup {
			return fmt.Errorf("clients %d and %d are the same client", j, i)
		}
		seen[c] = i
		rc := c.Redis()
		if config.IsNil(rc) {
			continue // Resolve reports it
		}
		if j, dup := rcs[rc]; dup {
			return fmt.Errorf("clients %d and %d use the same redis client", j, i)
		}
		rcs[rc] = i
		if pc, ok := rc.(*redis.Client); ok {
			addr := pc.Options().Addr
			if j, dup := addrs[addr]; dup {
				return fmt.Errorf("clients %d and %d both talk to %s", j, i, addr)
			}
			addrs[addr] = i
		}
	}
	return nil
}

// Lock locks r. It tries every node at once, each for at most the node
// timeout ([WithNodeTimeout]); it holds the lock when a majority granted
// it and the time that took, plus the drift allowance, left some of the
// lease (the validity time). Otherwise it gives back what it took, sleeps
// for a short random time (never past the blocking holder's lease) and
// tries again, until ctx ends. If r holds the lock already, Lock re-enters
// at once, without talking to Redis.
//
// When ctx ends first, the error matches both [lockkit.ErrNotObtained] and
// ctx.Err(), and r holds nothing it did not hold before. If the last round
// failed because fewer than a majority of nodes answered, the error also
// matches [lockkit.ErrQuorum] and says how many answered. Lock waits
// through node outages like it waits for a busy lock; use
// [RedLock.TryLock] to fail fast.
func (r *RedLock) Lock(ctx context.Context) error {
	if err := r.check(ctx); err != nil {
		return err
	}
	var last error // why the last round failed, beyond the lock being busy
	err := core.Wait(ctx, r.b.Cfg.Name, r.waiter, func(ctx context.Context) (bool, time.Duration, error) {
		ok, wait, err := r.attempt(ctx)
		if err != nil && !permanent(err) {
			if ctx.Err() == nil {
				// Otherwise the round was cut short; the one before says more.
				last = err
			}
			return false, wait, nil
		}
		return ok, wait, err
	})
	return withLast(err, last)
}

// TryLock makes one round over the nodes, without waiting, and reports
// whether r now holds the lock; it re-enters when r holds it already. It
// returns false and nil when other owners hold the lock; false and an
// error matching [lockkit.ErrQuorum] when fewer than a majority of nodes
// answered (or took the hold's fencing token); and false and an error
// matching [lockkit.ErrNotObtained] when a majority granted the lock too
// slowly for any validity time to be left.
func (r *RedLock) TryLock(ctx context.Context) (bool, error) {
	if err := r.check(ctx); err != nil {
		return false, err
	}
	ok, _, err := r.attempt(ctx)
	return ok, core.CtxError(ctx, r.b.Cfg.Name, err)
}

// attempt re-enters the live hold, or drops a lost one and makes a round.
func (r *RedLock) attempt(ctx context.Context) (bool, time.Duration, error) {
	r.op.Lock()
	defer r.op.Unlock()
	if h := r.hold; h != nil {
		if !h.ending && h.Err() == nil {
			h.Count++
			return true, r.b.Cfg.TTL(), nil
		}
		inDoubt := h.ending && h.Err() == nil
		err := r.drop(ctx, h)
		if inDoubt {
			// The next Unlock is the retry of the one in doubt, which this
			// settled: it returns this outcome and leaves the new hold be.
			r.retry = &err
		}
	}
	return r.round(ctx)
}

// Unlock undoes one Lock. The last one releases the lock on every node
// that holds it, at once, each within the node timeout, even when ctx has
// ended already (a request cancelled while holding the lock, say).
//
// It returns nil when a majority of nodes released it; an error matching
// [lockkit.ErrNotHeld] when r holds nothing; and [lockkit.ErrLost] when
// the hold was lost (its lost channel closed) or fewer than a majority
// still held it: another owner may have had the lock meanwhile. Nodes that
// do not answer in time then free their part when its lease ends, as it is
// no longer renewed. When so many nodes do not answer that the outcome is
// unknown, Unlock returns their errors and r keeps the hold: calling
// Unlock again asks those nodes again, without releasing anything twice.
func (r *RedLock) Unlock(ctx context.Context) error {
	if err := r.base().CheckInput(ctx); err != nil {
		return err
	}
	r.op.Lock()
	defer r.op.Unlock()
	name := r.b.Cfg.Name
	if p := r.retry; p != nil {
		r.retry = nil
		return *p
	}
	h := r.hold
	if h == nil {
		if err := r.clientErr(); err != nil {
			return core.Op("unlock", name, err)
		}
		if r.ownOwner {
			return core.NotHeld(name)
		}
		return r.releaseOwner(ctx)
	}
	if !h.ending && h.Err() == nil && h.Count > 1 {
		h.Count--
		return nil
	}
	if !h.ending {
		// From here on the releases decide whether the hold was kept.
		h.ending = true
		h.stop()
	}
	err, unknown := r.end(ctx, h)
	if unknown {
		return err
	}
	r.forget()
	r.setHold(nil)
	return err
}

// end releases what is left of the ending hold h (see settle) and returns
// the Unlock's outcome: nil when a majority released it, ErrLost when it
// was lost or too few nodes still held it, and the nodes' errors with
// unknown set when too few answered to tell. r.op held.
func (r *RedLock) end(ctx context.Context, h *redHold) (err error, unknown bool) {
	released, failed := r.settle(ctx, h.unknown)
	h.unknown = nil // undone once
	h.released += released
	err = h.Err()
	switch {
	case err != nil:
	case h.released >= r.quorum:
	case h.released+len(failed) < r.quorum:
		h.lose(fmt.Errorf("released on %d nodes, %d needed", h.released, r.quorum))
		err = h.Err()
	default:
		return core.Op("unlock", r.b.Cfg.Name, errors.Join(failed...)), true
	}
	return err, false
}

// Token returns the fencing token of r's current hold, or 0 when r holds
// nothing. It is the largest of the tokens the granting nodes minted, and
// before Lock returned every granting node's counter was brought up to
// it; see the package documentation for why tokens strictly increase per
// name and when they may not. A re-entry keeps the token of the hold.
func (r *RedLock) Token() int64 {
	if r == nil {
		return 0
	}
	return r.held.Token()
}

// Lost returns a channel that is closed when r's current hold is lost:
// the nodes' watchdogs found it gone, or could not renew it, on so many
// nodes that fewer than a majority still hold it; or, with
// [lockkit.WithLease], its validity time ended. (A closed Client's
// watchdog reports its node's part lost.) Nothing is ever sent on it, and Unlock does not close it unless it finds
// the hold lost. It returns nil (a channel that never fires) when r holds
// nothing; call it after Lock.
func (r *RedLock) Lost() <-chan struct{} {
	if r == nil {
		return nil
	}
	return r.held.Lost()
}

// Name returns the lock's name.
func (r *RedLock) Name() string { return r.base().Name() }

// Quorum returns how many nodes must hold the lock: N/2+1 of N (0 for a
// RedLock made with invalid arguments).
func (r *RedLock) Quorum() int {
	if r == nil {
		return 0
	}
	return r.quorum
}

// base returns r's base, or nil for a nil r.
func (r *RedLock) base() *core.Base {
	if r == nil {
		return nil
	}
	return &r.b
}

// check is core.Base.Check over every node's Client.
func (r *RedLock) check(ctx context.Context) error {
	if err := r.base().Check(ctx); err != nil {
		return err
	}
	if err := r.clientErr(); err != nil {
		return core.Op("use", r.b.Cfg.Name, err)
	}
	return nil
}

// clientErr returns the error of the first node's Client that is not
// usable (closed), or nil.
func (r *RedLock) clientErr() error {
	for _, n := range r.nodes {
		if err := n.cfg.Client.Err(); err != nil {
			return err
		}
	}
	return nil
}

// setHold makes h the current hold; nil when none. r.op held.
func (r *RedLock) setHold(h *redHold) {
	r.hold = h
	if h == nil {
		r.held.Set(nil)
		return
	}
	r.held.Set(h.Hold)
}
