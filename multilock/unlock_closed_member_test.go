package multilock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_after_Close_frees_every_member_when_one_holds_nothing: m
// holds b twice and a no more (its member value force-unlocked it). While
// the Client closes, an Unlock of m finds a's Client closed (a holds
// nothing: ErrClosed, which leaves nothing in doubt) and releases one of
// b's acquires; once Close has returned, b's hold is lost, and the next
// Unlock of m frees it in Redis, as Unlock does after Close, instead of
// asking a alone again.
func TestUnlock_after_Close_frees_every_member_when_one_holds_nothing(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	lc := redistest.Lockkit(t, rc)
	a, b := redistest.Unique(t), redistest.Unique(t)
	ma, mb := reentrant.New(lc, a), reentrant.New(lc, b)
	m := multilock.New([]lockkit.Locker{ma, mb})
	ctx := redistest.Ctx(t, redistest.Hang)
	for range 2 {
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := ma.ForceUnlock(ctx); !ok || err != nil {
		t.Fatalf("ForceUnlock(a) = %v, %v; want true", ok, err)
	}
	// Close waits for what the Client runs in the background: this holds
	// it between closing the Client and closing its watchdog.
	held := make(chan struct{})
	lc.Go(func() { <-held })
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	<-lc.Done()
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrClosed)
	close(held)
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrLost)
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
}
