package rwlock_test

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// wantWrongKind fails the test unless err matches ErrWrongKind.
func wantWrongKind(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, lockkit.ErrWrongKind) {
		t.Fatalf("%s = %v, want ErrWrongKind", what, err)
	}
}

func TestRWMutex_and_reentrant_lock_of_one_name_exclude_each_other(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc := redistest.Lockkit(t, c)
		ctx := redistest.Ctx(t, waitTimeout)

		t.Run("reentrant first", func(t *testing.T) {
			name := redistest.Unique(t)
			mu := reentrant.New(lc, name)
			redistest.MustLock(t, mu)
			token := mu.Token()
			before := dumpHash(t, c, lockKey(name))
			m := rwlock.New(lc, name)
			// Lock and RLock would wait for a lock of their own kind: they
			// return at once instead, with no intent left behind.
			wantWrongKind(t, "Lock", m.Lock(ctx))
			_, err := m.TryLock(ctx)
			wantWrongKind(t, "TryLock", err)
			wantWrongKind(t, "RLock", m.RLock(ctx))
			_, err = m.TryRLock(ctx)
			wantWrongKind(t, "TryRLock", err)
			_, err = m.ForceUnlock(ctx)
			wantWrongKind(t, "ForceUnlock", err)
			_, err = m.State(ctx)
			wantWrongKind(t, "State", err)
			if m.Token() != 0 || m.RToken() != 0 {
				t.Fatal("the rwlock reports a hold")
			}
			if after := dumpHash(t, c, lockKey(name)); !maps.Equal(before, after) {
				t.Fatalf("the reentrant lock's hash changed: %v -> %v", before, after)
			}
			for _, k := range []string{":leases", ":writers"} {
				if n, err := c.Exists(ctx, lockKey(name)+k).Result(); err != nil || n != 0 {
					t.Fatalf("rwlock key %s written: %d, %v", k, n, err)
				}
			}
			// The reentrant holder keeps its lock.
			redistest.WantHoldCount(t, mu, 1)
			if mu.Token() != token {
				t.Fatalf("the reentrant hold's token changed %d -> %d", token, mu.Token())
			}
			select {
			case <-mu.Lost():
				t.Fatal("the reentrant hold was reported lost")
			default:
			}
			redistest.MustLock(t, mu) // re-entry still works
			redistest.MustUnlock(t, mu)
			redistest.MustUnlock(t, mu)
			// Once the name is free, the rwlock takes it.
			redistest.MustLock(t, m)
			redistest.MustUnlock(t, m)
		})

		for _, side := range []string{"read", "write"} {
			t.Run("rwlock first, "+side, func(t *testing.T) {
				name := redistest.Unique(t)
				m := rwlock.New(lc, name)
				if side == "read" {
					mustRLock(t, m)
				} else {
					redistest.MustLock(t, m)
				}
				before := dumpHash(t, c, lockKey(name))
				mu := reentrant.New(lc, name)
				wantWrongKind(t, "Lock", mu.Lock(ctx))
				_, err := mu.TryLock(ctx)
				wantWrongKind(t, "TryLock", err)
				_, err = mu.ForceUnlock(ctx)
				wantWrongKind(t, "ForceUnlock", err)
				if after := dumpHash(t, c, lockKey(name)); !maps.Equal(before, after) {
					t.Fatalf("the rwlock's hash changed: %v -> %v", before, after)
				}
				// The rwlock's hold is untouched.
				if side == "read" {
					wantState(t, m, rwlock.ReadLocked, 1, 0, 1)
					mustRUnlock(t, m)
				} else {
					wantState(t, m, rwlock.WriteLocked, 0, 1, 0)
					redistest.MustUnlock(t, m)
				}
				redistest.MustLock(t, mu)
				redistest.MustUnlock(t, mu)
			})
		}
	})
}

// dumpHash returns the fields of the hash at key.
func dumpHash(t *testing.T, c redis.UniversalClient, key string) map[string]string {
	t.Helper()
	h, err := c.HGetAll(context.Background(), key).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(h) == 0 {
		t.Fatalf("hash %s is empty", key)
	}
	return h
}
