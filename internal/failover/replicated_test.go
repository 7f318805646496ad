package failover_test

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// replicated starts a master and a replica of it, and returns them once
// the master lists the replica online.
func replicated(t *testing.T) (master, replica *redistest.Server) {
	t.Helper()
	master, replica = redistest.StartServer(t), redistest.StartServer(t)
	host, port, _ := strings.Cut(master.Addr(), ":")
	if err := replica.Client(t).ReplicaOf(t.Context(), host, port).Err(); err != nil {
		t.Fatalf("REPLICAOF: %v", err)
	}
	mc := master.Client(t)
	redistest.Eventually(t, settleBound, "the replica online at the master", func() bool {
		info, err := mc.Info(t.Context(), "replication").Result()
		return err == nil && strings.Contains(info, "state=online")
	})
	return master, replica
}

// cutOff kills replica, the only replica of master, and returns once the
// master no longer lists it: a WAIT at the master then waits its whole
// timeout.
func cutOff(t *testing.T, master, replica *redistest.Server) {
	t.Helper()
	replica.Kill(t)
	mc := master.Client(t)
	redistest.Eventually(t, settleBound, "the master without a replica", func() bool {
		info, err := mc.Info(t.Context(), "replication").Result()
		return err == nil && strings.Contains(info, "connected_slaves:0")
	})
}

// namedClient returns a client of s whose connections carry the name
// name, so that the server's CLIENT LIST tells them apart (see
// waitingForReplicas). It is closed in t.Cleanup.
func namedClient(t *testing.T, s *redistest.Server, name string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), ClientName: name})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// waitingForReplicas returns once a connection named name (see
// namedClient) is blocked in a WAIT at master, and fails the test if none
// is within callTimeout.
func waitingForReplicas(t *testing.T, master *redistest.Server, name string) {
	t.Helper()
	mc := master.Client(t)
	redistest.Eventually(t, callTimeout, "a WAIT of "+name+" blocked at the master", func() bool {
		return blockedInWait(t, mc, name)
	})
}

// blockedInWait reports whether a connection named name (see namedClient)
// is blocked in a WAIT now at the master, which mc is a client of.
func blockedInWait(t *testing.T, mc *redis.Client, name string) bool {
	t.Helper()
	list, err := mc.ClientList(t.Context()).Result()
	if err != nil {
		return false
	}
	for line := range strings.SplitSeq(list, "\n") {
		if strings.Contains(line, " name="+name+" ") && strings.Contains(line, " flags=b ") && strings.Contains(line, " cmd=wait ") {
			return true
		}
	}
	return false
}

// ackWait is the timeout the tests give WithReplicaAck when the call must
// end long before it: a call that waits it out fails the test.
const ackWait = 8 * time.Second

// ackTimeoutShort is the timeout the tests give WithReplicaAck when the
// replicas are not to acknowledge: a call then fails soon.
const ackTimeoutShort = 100 * time.Millisecond
