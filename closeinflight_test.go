package lockkit_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestClose_gives_back_a_hold_whose_acquire_was_on_its_way: a Lock whose
// acquire the server had not answered when the Client closed, and which
// took the lock, returns ErrClosed and gives the hold back before it
// returns: nobody acts as its holder, and nothing is left in Redis.
func TestClose_gives_back_a_hold_whose_acquire_was_on_its_way(t *testing.T) {
	srv, rc, silent := silentServer(t)
	lc := lockkit.New(rc)
	name := redistest.Unique(t)
	m := reentrant.New(lc, name)
	redistest.MustLock(t, m) // the scripts are loaded
	redistest.MustUnlock(t, m)
	silent.On()
	ctx := redistest.Ctx(t, redistest.Hang)
	got := redistest.LockAsync(ctx, m)
	redistest.Eventually(t, redistest.Hang, "the acquire to be held up", func() bool { return silent.Held() > 0 })
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	<-lc.Done()
	silent.Off() // the acquire runs now, and takes the lock
	err := redistest.Receive(t, got, redistest.Hang, "the Lock")
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, err, lockkit.ErrClosed)
	if m.Token() != 0 {
		t.Errorf("Token after a Lock that failed = %d, want 0", m.Token())
	}
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrClosed)
	redistest.AssertClean(t, srv.Client(t), name)
}

// TestClose_a_Lock_whose_acquire_then_fails_returns_ErrClosed: a Lock
// whose acquire was on its way when the Client closed, and which then
// fails (the server is gone), returns ErrClosed, as every call of a closed
// Client does, not the acquire's network error alone.
func TestClose_a_Lock_whose_acquire_then_fails_returns_ErrClosed(t *testing.T) {
	srv, rc, silent := silentServer(t)
	lc := lockkit.New(rc)
	m := reentrant.New(lc, redistest.Unique(t))
	redistest.MustLock(t, m) // the scripts are loaded
	redistest.MustUnlock(t, m)
	silent.On()
	got := redistest.LockAsync(redistest.Ctx(t, redistest.Hang), m)
	redistest.Eventually(t, redistest.Hang, "the acquire to be held up", func() bool { return silent.Held() > 0 })
	srv.Kill(t)
	closed := make(chan error, 1)
	go func() { closed <- lc.Close() }()
	<-lc.Done()
	silent.Off() // the acquire is sent now, to a server that is gone
	err := redistest.Receive(t, got, redistest.Hang, "the Lock")
	if err := redistest.Receive(t, closed, redistest.Hang, "Close"); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, err, lockkit.ErrClosed)
}

// TestClose_gives_back_a_hold_whose_acquire_was_on_its_way_on_a_slow_link:
// every round trip to the server takes half a second, and its script
// cache is empty, so that the give-back's first try costs two round trips
// (the EVAL after a NOSCRIPT), more than a clean-up's first budget. A Lock
// whose acquire was on its way when the Client closed returns ErrClosed,
// and the give-back goes on until it is done: by the time Close returns,
// nothing of the hold is left in Redis, where before it was asked no more
// once the Client had closed, and held the lock for its whole lease.
func TestClose_gives_back_a_hold_whose_acquire_was_on_its_way_on_a_slow_link(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	rc := proxy.Client(t)
	ctx := redistest.Ctx(t, redistest.Hang)
	if err := rc.Ping(ctx).Err(); err != nil { // the connection is open
		t.Fatal(err)
	}
	proxy.SetDelay(250*time.Millisecond, 250*time.Millisecond)
	sent := redistest.CountCommands(rc)
	lc := lockkit.New(rc)
	name := redistest.Unique(t)
	m := reentrant.New(lc, name)
	got := redistest.LockAsync(ctx, m)
	redistest.Eventually(t, redistest.Hang, "the acquire to be sent", func() bool { return sent.Total() > 0 })
	if err := lc.Close(); err != nil {
		t.Fatal(err)
	}
	redistest.WantErr(t, redistest.Receive(t, got, redistest.Hang, "the Lock"), lockkit.ErrClosed)
	redistest.AssertClean(t, srv.Client(t), name)
}
