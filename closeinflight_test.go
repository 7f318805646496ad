package lockkit_test

import (
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestClose_reports_a_hold_whose_acquire_was_on_its_way_lost: a Lock whose
// acquire the server had not answered when the Client closed returns
// ErrClosed, or the hold, which Close reports lost as it does every hold
// open at Close (its lost signal is closed and its Token is 0 once Close
// returned), so that nobody acts as its holder; its Unlock frees it in
// Redis.
func TestClose_reports_a_hold_whose_acquire_was_on_its_way_lost(t *testing.T) {
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
	if err != nil {
		redistest.WantErr(t, err, lockkit.ErrClosed)
	} else {
		if !redistest.Closed(m.Lost()) {
			t.Fatal("Lock returned a hold after Close, and its lost signal is open once Close returned")
		}
		if m.Token() != 0 {
			t.Errorf("Token of the hold reported lost = %d, want 0", m.Token())
		}
	}
	if err := m.Unlock(ctx); err != nil && !errors.Is(err, lockkit.ErrClosed) {
		t.Fatalf("Unlock after Close = %v, want an error matching ErrClosed", err)
	}
	redistest.AssertClean(t, srv.Client(t), name)
}
