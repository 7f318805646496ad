package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
)

// TestRedLock_default_node_timeout_is_a_tenth_of_the_lease_at_most_250ms:
// with two of three nodes stalled, a round's error names the bound each
// silent node got: a tenth of a 1 s lease, and 250 ms
// (MaxNodeTimeout) for the default 30 s one.
func TestRedLock_default_node_timeout_is_a_tenth_of_the_lease_at_most_250ms(t *testing.T) {
	servers, clients := masters(t, 3)
	lcs := lockkits(t, clients)
	servers[1].Stall(t, 2*redistest.Hang)
	servers[2].Stall(t, 2*redistest.Hang)
	for _, tc := range []struct {
		opts []lockkit.Option
		says string
	}{
		{[]lockkit.Option{lockkit.WithLease(time.Second)}, "no answer within 100ms"},
		{nil, "no answer within " + multilock.MaxNodeTimeout.String()},
	} {
		r := multilock.NewRedLock(lcs, redistest.Unique(t), tc.opts...)
		wantTryLockFails(t, r, lockkit.ErrQuorum, "1 of 3 nodes answered", tc.says)
	}
}

// TestRedLock_drift_factor_shortens_a_fixed_lease_s_validity: with
// WithDriftFactor(0.45) a 2 s fixed lease is valid for at most 2 s −
// (0.9 s + 2 ms) from the start of its round, so the lost channel closes
// while the nodes still keep the lease for most of a second more.
func TestRedLock_drift_factor_shortens_a_fixed_lease_s_validity(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	_, clients := masters(t, 3)
	name := redistest.Unique(t)
	const lease = 2 * time.Second
	r := multilock.NewRedLock(lockkits(t, clients), name, lockkit.WithLease(lease), multilock.WithDriftFactor(0.45))
	redistest.MustLock(t, r)
	redistest.Receive(t, r.Lost(), redistest.Hang, "the lost channel to close when the validity ended")
	// Without the drift allowance, the nodes' leases would end at about
	// the same moment (2 ms later); half a second leaves room for a
	// loaded machine.
	for i, c := range clients {
		if ttl := c.PTTL(ctx, lockKey(name)).Val(); ttl < lease/4 {
			t.Errorf("node %d: %v of the lease left when the validity ended, want more than %v", i, ttl, lease/4)
		}
	}
	redistest.WantErr(t, r.Unlock(ctx), lockkit.ErrLost)
	assertCleanAll(t, clients, name)
}
