package multilock_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
)

// TestUnlock_after_Close_frees_every_member_when_one_holds_nothing: m
// holds b twice and a no more (its member value force-unlocked it). The
// Client closes, which reports b's hold lost at once (with ErrClosed);
// while Close still waits for what the Client runs in the background, an
// Unlock of m finds a's Client closed (a holds nothing, which leaves
// nothing in doubt) and frees b's lost hold in Redis, as Unlock does after
// Close, reporting the loss; nothing of either lock is left.
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
	// it up while m unlocks.
	held := make(chan struct{})
	lc.Go(func() { <-held })
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	redistest.Receive(t, mb.Lost(), redistest.Hang, "b's hold to be reported lost")
	err := m.Unlock(ctx)
	redistest.WantErr(t, err, lockkit.ErrLost)
	redistest.WantErr(t, err, lockkit.ErrClosed)
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
	close(held)
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
}
