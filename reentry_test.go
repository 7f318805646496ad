package lockkit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/spin"
)

// TestWithoutReentry_applies_to_hash_locks_only checks where the option
// is accepted: by reentrant, fair and spin locks and as a Client default
// for them, which other kinds made from that Client pass over; given to
// another kind, it is an error naming the option.
func TestWithoutReentry_applies_to_hash_locks_only(t *testing.T) {
	_, rc := redistest.Mini(t)
	lc := redistest.Lockkit(t, rc, lockkit.WithoutReentry())
	ctx := redistest.Ctx(t, 10*time.Second)
	for _, m := range []*reentrant.Mutex{reentrant.New(lc, "r"), fair.New(lc, "f"), spin.New(lc, "s")} {
		redistest.MustLock(t, m)
		if ok, err := m.TryLock(ctx); ok || err != nil {
			t.Fatalf("%s: TryLock by the holder with the Client default = %v, %v; want false", m.Name(), ok, err)
		}
		redistest.WantHoldCount(t, m, 1)
		redistest.MustUnlock(t, m)
	}
	rw := rwlock.New(lc, "rw")
	redistest.MustLock(t, rw)
	redistest.MustLock(t, rw) // the default does not apply: a writer re-enters
	redistest.MustUnlock(t, rw)
	redistest.MustUnlock(t, rw)

	err := rwlock.New(redistest.Lockkit(t, rc), "rw2", lockkit.WithoutReentry()).Lock(ctx)
	redistest.WantErr(t, err, lockkit.ErrInvalid)
	if !strings.Contains(err.Error(), "WithoutReentry") {
		t.Fatalf("error %q does not name the option", err)
	}
}

// TestWithoutReentry_a_second_Lock_takes_the_lock_when_the_owners_lease_runs_out
// checks the other way a non-reentrant owner's second Lock ends its wait:
// the owner's own hold has a fixed lease and is never released, so the
// Lock waits for that lease to run out, then takes a fresh hold (a larger
// token, a count of 1) while the first hold is reported lost, and one
// Unlock frees the lock.
func TestWithoutReentry_a_second_Lock_takes_the_lock_when_the_owners_lease_runs_out(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	for _, k := range []struct {
		name string
		new  func(*lockkit.Client, string, ...lockkit.Option) *reentrant.Mutex
	}{{"reentrant", reentrant.New}, {"fair", fair.New}, {"spin", spin.New}} {
		t.Run(k.name, func(t *testing.T) {
			name := redistest.Unique(t)
			m := k.new(redistest.Lockkit(t, rc), name, lockkit.WithoutReentry(), lockkit.WithLease(500*time.Millisecond))
			redistest.MustLock(t, m)
			first, lost := m.Token(), m.Lost()
			ctx := redistest.Ctx(t, redistest.Hang)
			if err := m.Lock(ctx); err != nil {
				t.Fatalf("second Lock by the owner, its own hold never released: %v", err)
			}
			if !redistest.Closed(lost) {
				t.Error("the second Lock holds, but the first hold's lost signal is open")
			}
			if m.Token() <= first {
				t.Errorf("token of the second hold %d, not above the first's %d", m.Token(), first)
			}
			redistest.WantHoldCount(t, m, 1)
			redistest.MustUnlock(t, m)
			if ok, err := m.IsLocked(ctx); ok || err != nil {
				t.Fatalf("IsLocked after one Unlock = %v, %v; want false", ok, err)
			}
		})
	}
}
