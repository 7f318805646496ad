package failover_test

import (
	"context"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// longLease is the lease of the holds whose release a test must see come
// from lockkit, not from the lease running out.
const longLease = 5 * time.Minute

// doubtKinds are the kinds whose Unlock in doubt, acquire on its way or
// re-entered hold the tests below put through a failover.
func doubtKinds() []kind { return kindsNamed("reentrant", "fair", "spin", "rwlock", "rwlock-read") }

// kindsNamed returns the kinds called names, in that order.
func kindsNamed(names ...string) []kind {
	var ks []kind
	for _, n := range names {
		for _, k := range kinds() {
			if k.name == n {
				ks = append(ks, k)
			}
		}
	}
	return ks
}

// TestUnlock_in_doubt_across_a_failover_never_called_again_is_settled_in_the_background
// holds each kind's lock with a lease of 5 minutes and makes its holder's
// last Unlock fail, its release never sent, after which Unlock is never
// called again. The holder's Client tries the release again in the
// background, but the server does not answer those tries (they are held
// up in the client) while the deployment fails over; only then are they
// let go. They settle the release at the new master: another owner gets
// the lock long before the lease could end, the holder's lost signal
// stays open, and its next Unlock returns the kept outcome, nil, and the
// one after ErrNotHeld.
func TestUnlock_in_doubt_across_a_failover_never_called_again_is_settled_in_the_background(t *testing.T) {
	eachDeployment(t, func(t *testing.T, d deployment) {
		rc := d.client(t)
		// The first hook added acts first: a release refused is held
		// up by neither.
		refuse := &redistest.RefuseSend{Match: redistest.IsScript}
		silence := &redistest.Silence{Match: redistest.IsScript, Max: waiterBound}
		rc.AddHook(refuse)
		rc.AddHook(silence)
		holders := redistest.Lockkit(t, rc, lockkit.WithWatchdogTimeout(longLease))
		others := redistest.Lockkit(t, d.client(t))
		doubts := lockEach(t, d, doubtKinds(), holders)
		d.replicated(t)
		silence.On()
		for _, h := range doubts {
			refuse.Arm()
			if err := h.holder.Unlock(redistest.Ctx(t, callTimeout)); err == nil || refuse.Armed() {
				t.Fatalf("%s: Unlock whose release was not sent = %v (refused: %v); want an error", h.k.name, err, !refuse.Armed())
			}
		}
		redistest.Eventually(t, callTimeout, "the releases tried again in the background to be held up", func() bool {
			return silence.Held() == int64(len(doubts))
		})
		d.failover(t)
		silence.Off()
		for _, h := range doubts {
			t.Run(h.k.name, func(t *testing.T) {
				t.Parallel()
				other := h.k.waiter(others, h.name)
				retry(t, "another owner's Lock", func(ctx context.Context) error { return other.Lock(ctx) })
				retry(t, "the other owner's Unlock", other.Unlock)
				if redistest.AnyClosed(h.lost) {
					t.Fatalf("the release settled in the background closed the holder's lost signal")
				}
				if err := h.holder.Unlock(redistest.Ctx(t, callTimeout)); err != nil {
					t.Fatalf("the holder's next Unlock = %v; want nil, the kept outcome", err)
				}
				redistest.WantErr(t, h.holder.Unlock(redistest.Ctx(t, callTimeout)), lockkit.ErrNotHeld)
			})
		}
	})
}
