package multilock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/multilock"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/redis/go-redis/v9"
)

// TestUnlock_in_doubt_is_settled_by_calling_it_again: when the reply to
// one member's release is lost, Unlock fails with that member's error
// (neither ErrNotHeld nor ErrLost) and frees the others; calling it again
// settles the member without a loss, and the members released already
// report ErrNotHeld.
func TestUnlock_in_doubt_is_settled_by_calling_it_again(t *testing.T) {
	ctx := redistest.Ctx(t, redistest.Hang)
	rc, c, cB, drop := droppedReleases(t)
	a, b, m := lockedPair(t, c, cB)

	unlockInDoubt(ctx, t, m, drop)
	if drop.Armed() {
		t.Fatal("b's release never reached the server")
	}
	redistest.AssertClean(t, rc, a)
	wantSettled(t, m.Unlock(ctx))
	redistest.AssertClean(t, rc, b)
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
}

// TestUnlock_returns_within_ctx_while_a_member_is_silent: while one
// member's release gets no answer, Unlock returns when its ctx ends, with
// the others released; once the member answers, Unlock called again
// settles it.
func TestUnlock_returns_within_ctx_while_a_member_is_silent(t *testing.T) {
	rc, c, cB, silent := silentReleases(t)
	defer silent.Off()
	a, b, m := lockedPair(t, c, cB)

	silent.On()
	errs := redistest.WantDeadlines(t, 100*time.Millisecond, map[string]func(context.Context) error{"Unlock with b silent": m.Unlock})
	if err := errs["Unlock with b silent"]; errors.Is(err, lockkit.ErrNotHeld) || errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("Unlock with b silent = %v; want b's error alone", err)
	}
	redistest.AssertClean(t, rc, a)
	silent.Off()
	wantSettled(t, m.Unlock(redistest.Ctx(t, redistest.Hang)))
	redistest.AssertClean(t, rc, b)
}

// wantSettled checks err, the error of an Unlock of a Mutex of two members
// called again after the release of its second member was in doubt: the
// first member, released already, reports ErrNotHeld, and the second
// settles without a loss.
func wantSettled(t *testing.T, err error) {
	t.Helper()
	redistest.WantErr(t, err, lockkit.ErrNotHeld)
	if errors.Is(err, lockkit.ErrLost) {
		t.Fatalf("Unlock called again = %v; want the release in doubt settled without a loss", err)
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != 1 {
		t.Fatalf("Unlock called again = %v; want the error of the first member alone", err)
	}
}

// retrySettles calls m's Unlock again after the release of b, its second
// member, was in doubt (a, its first, was released), having locked m
// again first when relock is set: the call settles b's release (see
// wantSettled) and releases none of the new holds, which the Unlock after
// it frees; then the next Unlock returns ErrNotHeld, and nothing of a or
// b is left in rc.
func retrySettles(ctx context.Context, t *testing.T, rc redis.UniversalClient, c *lockkit.Client, m *multilock.Mutex, a, b string, relock bool) {
	t.Helper()
	if relock {
		redistest.MustLock(t, m)
	}
	wantSettled(t, m.Unlock(ctx))
	if relock {
		for _, name := range []string{a, b} {
			if ok, err := reentrant.New(c, name).TryLock(ctx); ok || err != nil {
				t.Fatalf("TryLock of %s by another owner after the retry = %v, %v; want false: m locked it again", name, ok, err)
			}
		}
		redistest.MustUnlock(t, m)
	}
	redistest.WantErr(t, m.Unlock(ctx), lockkit.ErrNotHeld)
	redistest.AssertClean(t, rc, a)
	redistest.AssertClean(t, rc, b)
}
