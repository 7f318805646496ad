package clusterfault_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// TestWithReplicaAck_Lock_after_the_slot_moved_asks_the_new_master moves a
// lock's slot back and forth between two masters, both of which have run
// the lock's scripts, and takes the lock with WithReplicaAck after each
// move through a client whose slot map has not followed: the acquire
// follows the MOVED to the new master, and so must the acknowledgement,
// which the old master would answer with MOVED.
func TestWithReplicaAck_Lock_after_the_slot_moved_asks_the_new_master(t *testing.T) {
	cl := redistest.StartCluster(t)
	c := redistest.Lockkit(t, cl.Client(t), lockkit.WithReplicaAck(1, 2*time.Second))
	name := redistest.Unique(t)
	key := lockKey(name)
	m := reentrant.New(c, name)
	masters := []*redistest.Server{cl.MasterOf(t, key)}
	masters = append(masters, cl.OtherMaster(t, masters[0]))
	for i := range 8 {
		redistest.MustLock(t, m)
		redistest.MustUnlock(t, m)
		cl.MoveSlot(t, key, masters[(i+1)%2])
		if err := m.Lock(redistest.Ctx(t, callTimeout)); err != nil {
			t.Fatalf("Lock after move %d: %v", i+1, err)
		}
		redistest.MustUnlock(t, m)
	}
}
