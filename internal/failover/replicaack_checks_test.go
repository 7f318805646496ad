package failover_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// shortfall reports whether an acquire with WithReplicaAck that returned
// ok and err (ok false for a Lock) was refused for want of
// acknowledgements: err matches ErrReplicaAck and says how many of how
// many replicas acknowledged (acked, "0 of 1" say). Otherwise it says so
// with t.Errorf, the call named by call.
func shortfall(t *testing.T, call string, ok bool, err error, acked string) bool {
	t.Helper()
	if ok || !errors.Is(err, lockkit.ErrReplicaAck) || !strings.Contains(err.Error(), acked+" replicas acknowledged") {
		t.Errorf("%s = %v, %v; want ErrReplicaAck saying %s acknowledged", call, ok, err, acked)
		return false
	}
	return true
}

// takesFree reports whether l, another owner's lock, takes the lock at
// once with TryLock: the lock is free after what after names. Otherwise
// it says so with t.Errorf.
func takesFree(t *testing.T, l lockkit.Locker, after string) bool {
	t.Helper()
	if ok, err := l.TryLock(redistest.Ctx(t, callTimeout)); !ok || err != nil {
		t.Errorf("another owner's TryLock after %s = %v, %v; want the lock free", after, ok, err)
		return false
	}
	return true
}
