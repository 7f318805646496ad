package conformance

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// testRestart checks that fencing tokens stay increasing across a restart
// without persistence that lost the lock and its fencing counter
// PREFIX:{NAME}:fence: the next hold's token is larger than every token
// handed out before, the hold from before the restart is reported lost,
// and the counter runs on from the new token. It restarts a server, so it
// starts one of its own rather than share a backend's.
func testRestart(t *testing.T, k Kind) {
	if _, ok := k.New(nil, "x").(tokener); !ok {
		return // no fencing token: nothing to check
	}
	srv := redistest.StartServer(t)
	lc := redistest.Lockkit(t, srv.Client(t))
	name := redistest.Unique(t)
	a := k.New(lc, name)
	before := srv.RestartHolding(t, a.(interface {
		lockkit.Locker
		tokener
	}))
	b := k.New(lc, name)
	redistest.MustLock(t, b)
	if token(b) <= before {
		t.Fatalf("token %d after the restart, not above %d from before it", token(b), before)
	}
	redistest.WantErr(t, a.Unlock(redistest.Ctx(t, 5*time.Second)), lockkit.ErrLost)
	redistest.MustUnlock(t, b)

	redistest.MustLock(t, a)
	if token(a) <= token(b) {
		t.Fatalf("token %d after a hold with token %d", token(a), token(b))
	}
	redistest.MustUnlock(t, a)
}
