package multilock

import (
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/config"
	"github.com/lockkit/lockkit/internal/core"
)

// node is one master: its Client and this value's holder there.
type node struct {
	i   int
	cfg core.Config
	h   *core.Holder
}

// NewRedLock returns the lock name over the independent masters that the
// clients talk to, for a new owner. Use an odd number of masters (3 or 5)
// that fail independently; replicas of one another do not count, nor do
// the masters of one Cluster (give the Cluster as one node). The
// shared options [lockkit.WithLease], [lockkit.WithWatchdogTimeout],
// [lockkit.WithOwner], [lockkit.WithPrefix], [lockkit.WithMaxHold],
// [lockkit.WithHolderInfo] and [lockkit.WithTrace] apply to every node, as
// do [WithNodeTimeout] and [WithDriftFactor]. Defaults the Clients were
// made with apply too, and must agree between them.
//
// It does no I/O and cannot fail: invalid arguments (no client, a nil or
// repeated client, two clients of one server as far as it can tell
// without I/O: the same go-redis client, or two *redis.Client with the
// same address; an empty name, a bad option) make every method return an
// error matching [lockkit.ErrInvalid].
func NewRedLock(clients []*lockkit.Client, name string, opts ...lockkit.Option) *RedLock {
	r := &RedLock{op: core.NewSerial()}
	if err := checkClients(clients); err != nil {
		r.b = core.Base{Cfg: core.Config{Name: name}, Err: core.Invalid("%s %q: %v", config.RedLock, name, err)}
		return r
	}
	r.b = core.NewBase(clients[0], config.RedLock, name, opts)
	if r.b.Err != nil {
		return r
	}
	first := r.b.Cfg
	r.tr = core.NewTracer(&r.b.Cfg, false, false)
	keys := first.Keys
	r.keys = []string{keys.Base, keys.Fence, keys.Released}
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
		n := &node{i: i, cfg: cfg}
		spec := core.HashLock(&n.cfg, noChannel)
		spec.Quiet = true // the RedLock's hold is one, whatever its parts
		spec.Timed = true // the RedLock works out its validity
		n.h = core.NewHolder(spec)
		r.nodes = append(r.nodes, n)
	}
	r.quorum = len(clients)/2 + 1 // once the arguments are known valid: Quorum reports 0 otherwise
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
