package lockkit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/watchdog"
)

// inspected is a lock value whose state can be asked for.
type inspected interface {
	IsLocked(context.Context) (bool, error)
	HoldCount(context.Context) (int, error)
	TTL(context.Context) (time.Duration, error)
}

// TestTrace_a_stall_past_the_lease_reports_Lost_once_with_its_cause_and_the_lock_free
// checks, for every kind, that a hold whose server stalls past its lease
// is reported Lost once, with an error matching ErrLost and saying it was
// not renewed in time, and its Unlock Released once with that loss; the
// lock values that answer queries then find the lock free: IsLocked
// false, HoldCount 0, TTL 0.
func TestTrace_a_stall_past_the_lease_reports_Lost_once_with_its_cause_and_the_lock_free(t *testing.T) {
	eachTraceKind(t, func(t *testing.T, k traceKind) {
		m, ev := lostAndReleased(t, k, func(t *testing.T, srv *redistest.Server, m tracedLock, _ *traceLog) {
			srv.Stall(t, 1500*time.Millisecond)
			redistest.Receive(t, m.Lost(), redistest.Hang, "the lost signal")
		})
		if l := ev[1]; !errors.Is(l.err, lockkit.ErrLost) || !errors.Is(l.err, watchdog.ErrNotRenewed) || l.token != ev[0].token {
			t.Errorf("Lost = %+v; want ErrLost, not renewed in time, for hold %d", l, ev[0].token)
		}
		if r := ev[2]; !r.ended || !errors.Is(r.err, lockkit.ErrLost) || r.token != ev[0].token {
			t.Errorf("Released = %+v; want the end of hold %d with its loss", r, ev[0].token)
		}
		q, ok := m.(inspected)
		if !ok {
			return
		}
		ctx := redistest.Ctx(t, redistest.Hang)
		locked, err := q.IsLocked(ctx)
		if locked || err != nil {
			t.Errorf("IsLocked after the lost hold = %v, %v; want false", locked, err)
		}
		if n, err := q.HoldCount(ctx); n != 0 || err != nil {
			t.Errorf("HoldCount after the lost hold = %d, %v; want 0", n, err)
		}
		if ttl, err := q.TTL(ctx); ttl != 0 || err != nil {
			t.Errorf("TTL after the lost hold = %v, %v; want 0", ttl, err)
		}
	})
}
