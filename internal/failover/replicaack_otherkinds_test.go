package failover_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/semaphore"
)

// TestWithReplicaAck_given_to_a_kind_it_does_not_apply_to_returns_ErrInvalid:
// a semaphore, an election and a latch made with WithReplicaAck fail with
// ErrInvalid naming the option, before anything is sent to Redis (a
// RedLock's case is in TestWithReplicaAck_invalid_returns_ErrInvalid).
func TestWithReplicaAck_given_to_a_kind_it_does_not_apply_to_returns_ErrInvalid(t *testing.T) {
	t.Parallel()
	lc, _ := redistest.Silent(t)
	ack := lockkit.WithReplicaAck(1, ackWait)
	calls := map[string]func(ctx context.Context) error{
		"semaphore": func(ctx context.Context) error {
			_, err := semaphore.New(lc, "x", 2, ack).Acquire(ctx, 1)
			return err
		},
		"election": func(ctx context.Context) error {
			_, err := election.New(lc, "x", ack).Campaign(ctx, "v")
			return err
		},
		"latch": func(ctx context.Context) error {
			_, err := latch.New(lc, "x", 1, ack).CountDown(ctx)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call(redistest.Ctx(t, callTimeout))
			if !errors.Is(err, lockkit.ErrInvalid) || !strings.Contains(err.Error(), "WithReplicaAck") {
				t.Fatalf("= %v, want ErrInvalid naming WithReplicaAck", err)
			}
		})
	}
}

// TestWithReplicaAck_as_a_Client_default_is_passed_over_by_the_kinds_it_does_not_apply_to
// gives WithReplicaAck as the Client's default on a master whose only
// replica is cut off, where a lock that waited for the replicas would fail
// with ErrReplicaAck: a semaphore's permits, an election's leadership and a
// RedLock are taken as without the option.
func TestWithReplicaAck_as_a_Client_default_is_passed_over_by_the_kinds_it_does_not_apply_to(t *testing.T) {
	t.Parallel()
	master, replica := replicated(t)
	cutOff(t, master, replica)
	lc := redistest.Lockkit(t, master.Client(t), lockkit.WithReplicaAck(1, ackWait))
	locks := map[string]lockkit.Locker{
		"redlock": multilock.NewRedLock([]*lockkit.Client{lc}, redistest.Unique(t)),
	}
	for _, k := range kinds() {
		if k.noReplicaAck {
			locks[k.name] = k.holder(lc, redistest.Unique(t))
		}
	}
	for name, l := range locks {
		if err := l.Lock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Errorf("%s: Lock = %v, want the lock taken", name, err)
			continue
		}
		if err := l.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Errorf("%s: Unlock: %v", name, err)
		}
	}
}
