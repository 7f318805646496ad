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
