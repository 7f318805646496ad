package failover_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestWithReplicaAck_on_a_Ring_fails_and_leaves_the_lock_free: a Ring
// client cannot name the master of a key, so a TryLock with
// WithReplicaAck of every kind the option applies to fails, saying which
// clients it needs, and leaves the lock free.
func TestWithReplicaAck_on_a_Ring_fails_and_leaves_the_lock_free(t *testing.T) {
	t.Parallel()
	srv := redistest.StartServer(t)
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": srv.Addr()}})
	t.Cleanup(func() { _ = ring.Close() })
	lc := redistest.Lockkit(t, ring, lockkit.WithReplicaAck(1, ackTimeoutShort))
	others := redistest.Lockkit(t, srv.Client(t))
	for _, k := range ackKinds() {
		name := redistest.Unique(t)
		ok, err := k.holder(lc, name).TryLock(redistest.Ctx(t, callTimeout))
		if ok || err == nil || errors.Is(err, lockkit.ErrReplicaAck) || !strings.Contains(err.Error(), "WithReplicaAck needs a *redis.Client") {
			t.Errorf("%s: TryLock on a Ring = %v, %v; want an error saying WithReplicaAck needs another client", k.name, ok, err)
			continue
		}
		takesFree(t, k.waiter(others, name), k.name+"'s failure")
	}
}
