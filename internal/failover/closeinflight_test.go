package failover_test

import (
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// TestClose_during_a_failover_gives_back_what_an_acquire_on_its_way_took
// starts each kind's Lock of a free lock while the server does not answer
// (its acquire held up in the client), fails the deployment over, closes
// the Client and only then lets the acquire go: it reaches the new master
// and takes the lock. Each Lock returns ErrClosed, having given back what
// it took: another owner's TryLock gets the lock at once, not when the
// lease of 5 minutes ends, and nothing of the lock is left in Redis.
func TestClose_during_a_failover_gives_back_what_an_acquire_on_its_way_took(t *testing.T) {
	eachDeployment(t, func(t *testing.T, d deployment) {
		rc := d.client(t)
		silence := &redistest.Silence{Match: redistest.IsScript, Max: waiterBound}
		rc.AddHook(silence)
		lc, others := closingClient(t, d, rc)
		type inflight struct {
			k    kind
			name string
			got  <-chan error
		}
		var calls []inflight
		for _, k := range doubtKinds() {
			c := inflight{k: k, name: pickName(t, k, d)}
			m := k.holder(lc, c.name)
			redistest.MustLock(t, m) // the scripts are loaded
			redistest.MustUnlock(t, m)
			calls = append(calls, c)
		}
		d.replicated(t)
		silence.On()
		for i, c := range calls {
			calls[i].got = redistest.LockAsync(redistest.Ctx(t, waiterBound), c.k.holder(lc, c.name))
			redistest.Eventually(t, callTimeout, c.k.name+": the acquire to be held up", func() bool {
				return silence.Held() > int64(i)
			})
		}
		d.failover(t)
		// The acquires held up were sent to the old master; a cluster
		// client must know the new one for them to reach it (a killed
		// master answers nothing, so nothing has told it yet).
		d.follow(t, rc)
		closed := make(chan error, 1)
		go func() { closed <- lc.Close() }()
		<-lc.Done()
		silence.Off() // the acquires run now, at the new master
		for _, c := range calls {
			err := redistest.Receive(t, c.got, waiterBound, c.k.name+": the Lock")
			redistest.WantErr(t, err, lockkit.ErrClosed)
		}
		if err := redistest.Receive(t, closed, waiterBound, "Close"); err != nil {
			t.Fatal(err)
		}
		for _, c := range calls {
			t.Run(c.k.name, func(t *testing.T) {
				t.Parallel()
				other := c.k.waiter(others, c.name)
				if !tryLockAfter(t, other) {
					t.Fatalf("another owner was refused the lock that a Lock of a closed Client took")
				}
				retry(t, "the other owner's Unlock", other.Unlock)
				redistest.AssertClean(t, others.Redis(), c.name)
			})
		}
	})
}
