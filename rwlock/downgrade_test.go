package rwlock_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/rwlock"
)

// The downgrade (Lock, RLock, Unlock leaves the owner reading) when a
// reply is lost on its way back: the retry and the undo settle it without
// touching the other hold.

// droppingReplies returns a Client of a new redis client of c's server
// whose script replies h drops once armed, and a fresh lock name.
func droppingReplies(t *testing.T, c redis.UniversalClient) (*lockkit.Client, *redistest.DropReply, string) {
	t.Helper()
	h := &redistest.DropReply{Match: isScript}
	rc := redistest.SpecClient(redistest.ClientSpec(c))
	t.Cleanup(func() { _ = rc.Close() })
	rc.AddHook(h)
	return redistest.Lockkit(t, rc), h, redistest.Unique(t)
}

// TestUnlock_of_a_downgrade_retried_after_a_lost_reply_keeps_the_read_hold
// checks that an Unlock of a writer that also reads, whose reply is lost,
// is settled by calling Unlock again: the write hold ends once, and the
// owner keeps reading, with its read token and no loss reported, so that
// other readers get in and writers stay out until it calls RUnlock.
func TestUnlock_of_a_downgrade_retried_after_a_lost_reply_keeps_the_read_hold(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc, drop, name := droppingReplies(t, c)
		m := rwlock.New(lc, name)
		redistest.MustLock(t, m)
		mustRLock(t, m)
		rtoken := m.RToken()
		drop.Arm()
		redistest.WantErr(t, m.Unlock(redistest.Ctx(t, waitTimeout)), redistest.ErrReplyDropped)
		redistest.MustUnlock(t, m)
		wantState(t, m, rwlock.ReadLocked, 1, 0, 1)
		if m.Token() != 0 || m.RToken() != rtoken {
			t.Fatalf("after the retried Unlock Token = %d, RToken = %d; want 0 and %d", m.Token(), m.RToken(), rtoken)
		}
		if redistest.Closed(m.RLost()) || m.RContext(context.Background()).Err() != nil {
			t.Fatal("the retried Unlock ended the read hold")
		}
		if tryLock(t, rwlock.New(lc, name)) {
			t.Fatal("another writer got the lock the downgraded owner reads")
		}
		wantAdmitted(t, rwlock.New(lc, name), "after the downgrade")
		redistest.WantErr(t, m.Unlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
		mustRUnlock(t, m)
		wantWriterGets(t, lc, name)
	})
}

// TestRLock_by_the_writer_with_a_lost_reply_leaves_no_read_hold checks
// that the writer's RLock (or TryRLock) whose reply is lost is undone: the
// writer holds nothing it did not hold before, so that its Unlock frees the
// lock instead of leaving it read-locked by a read hold nobody knows of.
func TestRLock_by_the_writer_with_a_lost_reply_leaves_no_read_hold(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, c redis.UniversalClient) {
		lc, drop, name := droppingReplies(t, c)
		m := rwlock.New(lc, name)
		for what, rlock := range map[string]func(context.Context) error{
			"RLock":    m.RLock,
			"TryRLock": func(ctx context.Context) error { _, err := m.TryRLock(ctx); return err },
		} {
			redistest.MustLock(t, m)
			drop.Arm()
			redistest.WantErr(t, rlock(redistest.Ctx(t, waitTimeout)), redistest.ErrReplyDropped)
			wantState(t, m, rwlock.WriteLocked, 0, 1, 0)
			if m.RToken() != 0 {
				t.Fatalf("the writer's %s with a lost reply left a read hold known", what)
			}
			redistest.MustUnlock(t, m)
			wantState(t, m, rwlock.Unlocked, 0, 0, 0)
			redistest.WantErr(t, m.RUnlock(redistest.Ctx(t, waitTimeout)), lockkit.ErrNotHeld)
		}
		wantWriterGets(t, lc, name)
	})
}

// TestUnlock_of_a_downgrade_lets_the_waiting_readers_in_before_the_next_writer
// checks the promise of a write release to the readers it kept out: they
// get their turn before the next writer. When the writer downgrades, the
// lock stays read-locked, so the writer woken with the readers can only
// register its intent again; the readers must still get in beside the
// downgraded owner instead of waiting until that writer has had the lock.
// Once they are in, new readers stay out again behind the waiting writer.
// All of them share one Client, where the waiter woken last runs first.
func TestUnlock_of_a_downgrade_lets_the_waiting_readers_in_before_the_next_writer(t *testing.T) {
	onBackends(t, func(t *testing.T, _ redis.UniversalClient, lc *lockkit.Client, name string) {
		w, r, w2 := rwlock.New(lc, name), rwlock.New(lc, name), rwlock.New(lc, name)
		redistest.MustLock(t, w)
		read := async(t, func() error { return r.RLock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the reader to wait", func() bool {
			return lc.Notifier().Sleeping(channel(lc, name, "ch")) == 1
		})
		wrote := async(t, func() error { return w2.Lock(redistest.Ctx(t, spanTimeout)) })
		redistest.Eventually(t, waitTimeout, "the writer to wait", func() bool {
			return lc.Notifier().Sleeping(writersChannel(lc, name)) == 1
		})
		mustRLock(t, w)
		redistest.MustUnlock(t, w) // a downgrade: w reads on
		if err := redistest.Receive(t, read, waitTimeout, "the RLock of the reader that waited"); err != nil {
			t.Fatalf("RLock = %v", err)
		}
		pending(t, wrote, "the next writer's Lock")
		redistest.Eventually(t, waitTimeout, "the writer's intent to hold back new readers again", func() bool {
			newcomer := rwlock.New(lc, name)
			if tryRLock(t, newcomer) {
				mustRUnlock(t, newcomer)
				return false
			}
			return state(t, w).WaitingWriters == 1
		})
		mustRUnlock(t, r)
		mustRUnlock(t, w)
		if err := redistest.Receive(t, wrote, waitTimeout, "the next writer's Lock"); err != nil {
			t.Fatalf("Lock = %v", err)
		}
		redistest.MustUnlock(t, w2)
	})
}
