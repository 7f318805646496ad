package redistest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

// migrateTimeout is the timeout, in milliseconds, of each MIGRATE.
const migrateTimeout = 5000

// Migration is the move of one hash slot of a [Cluster] from its master
// to another, step by step, as `redis-cli --cluster reshard` does it:
// [Cluster.BeginMigration] opens it (CLUSTER SETSLOT IMPORTING at the
// new master, MIGRATING at the old one), [Migration.MigrateKeys] moves
// the slot's keys (MIGRATE), [Migration.Finish] hands the slot over
// (SETSLOT NODE). Between the steps, a command on the slot's keys gets
// an ASK redirection or a TRYAGAIN error from the nodes; after Finish, a
// MOVED.
type Migration struct {
	c        *Cluster
	slot     int64
	from, to *Server
	toID     string
	done     bool // Finish returned
}

// BeginMigration opens the move of key's slot from its master to the
// master to, and returns it. It fails the test if to already serves the
// slot. A move not finished when the test ends is finished in t.Cleanup,
// so that the nodes agree again.
func (c *Cluster) BeginMigration(t testing.TB, key string, to *Server) *Migration {
	t.Helper()
	from := c.MasterOf(t, key)
	if from == to {
		t.Fatalf("redistest: %s already serves the slot of %q", to.Addr(), key)
	}
	ctx := Ctx(t, clusterReadyTimeout)
	fc, tc := adminClient(from.Addr()), adminClient(to.Addr())
	defer fc.Close()
	defer tc.Close()
	slot, err := fc.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	fromID, err := fc.ClusterMyID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	toID, err := tc.ClusterMyID(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.Do(ctx, "cluster", "setslot", slot, "importing", fromID).Err(); err != nil {
		t.Fatalf("redistest: SETSLOT IMPORTING at %s: %v", to.Addr(), err)
	}
	if err := fc.Do(ctx, "cluster", "setslot", slot, "migrating", toID).Err(); err != nil {
		t.Fatalf("redistest: SETSLOT MIGRATING at %s: %v", from.Addr(), err)
	}
	m := &Migration{c: c, slot: slot, from: from, to: to, toID: toID}
	t.Cleanup(func() {
		if !m.done {
			m.MigrateKeys(t)
			m.Finish(t)
		}
	})
	return m
}

// Slot returns the slot being moved.
func (m *Migration) Slot() int64 { return m.slot }

// From returns the slot's old master.
func (m *Migration) From() *Server { return m.from }

// To returns the slot's new master.
func (m *Migration) To() *Server { return m.to }

// MigrateKeys moves every key of the slot still at the old master to the
// new one, a MIGRATE of up to 100 keys at a time, and returns the keys it
// moved.
func (m *Migration) MigrateKeys(t testing.TB) []string {
	t.Helper()
	ctx := Ctx(t, clusterReadyTimeout)
	fc := adminClient(m.from.Addr())
	defer fc.Close()
	var moved []string
	for {
		keys, err := fc.ClusterGetKeysInSlot(ctx, int(m.slot), 100).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			return moved
		}
		m.migrate(t, fc, keys)
		moved = append(moved, keys...)
	}
}

// MigrateSome moves keys, which must be at the old master, to the new
// one in one MIGRATE, leaving the slot's other keys where they are: as a
// resharding that stopped between two of its MIGRATEs leaves a slot.
func (m *Migration) MigrateSome(t testing.TB, keys ...string) {
	t.Helper()
	fc := adminClient(m.from.Addr())
	defer fc.Close()
	m.migrate(t, fc, keys)
}

// migrate moves keys from the old master, whose client is fc, to the new
// one in one MIGRATE.
func (m *Migration) migrate(t testing.TB, fc *redis.Client, keys []string) {
	t.Helper()
	args := []any{"migrate", "127.0.0.1", m.to.port, "", 0, migrateTimeout, "keys"}
	for _, k := range keys {
		args = append(args, k)
	}
	if err := fc.Do(Ctx(t, clusterReadyTimeout), args...).Err(); err != nil {
		t.Fatalf("redistest: MIGRATE %q to %s: %v", keys, m.to.Addr(), err)
	}
}

// Finish gives the slot to the new master: SETSLOT NODE at the new
// master, then at the old one, then at the others, and returns once every
// node agrees that the new master serves it. Call it after MigrateKeys:
// the old master refuses to give up a slot that still has keys.
func (m *Migration) Finish(t testing.TB) {
	t.Helper()
	ctx := Ctx(t, clusterReadyTimeout)
	nodes := []*Server{m.to, m.from}
	for _, s := range m.c.servers {
		if s != m.to && s != m.from && s.running() {
			nodes = append(nodes, s)
		}
	}
	for _, s := range nodes {
		rc := adminClient(s.Addr())
		err := rc.Do(ctx, "cluster", "setslot", m.slot, "node", m.toID).Err()
		_ = rc.Close()
		if err != nil {
			t.Fatalf("redistest: SETSLOT %d NODE at %s: %v", m.slot, s.Addr(), err)
		}
	}
	m.c.await(t, func(*topology) error { return m.served() })
	m.done = true
}

// served reports, as an error, whether a node other than the new master
// still serves the slot, as the new master sees it.
func (m *Migration) served() error {
	rc := adminClient(m.to.Addr())
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	shards, err := rc.ClusterShards(ctx).Result()
	if err != nil {
		return err
	}
	for _, sh := range shards {
		if !slices.ContainsFunc(sh.Slots, func(r redis.SlotRange) bool { return r.Start <= m.slot && m.slot <= r.End }) {
			continue
		}
		for _, n := range sh.Nodes {
			if n.Role == "master" && n.Port == int64(m.to.port) {
				return nil
			}
		}
		return fmt.Errorf("slot %d still served by %+v", m.slot, sh.Nodes)
	}
	return fmt.Errorf("slot %d is not served", m.slot)
}

// MoveSlot moves key's slot, with its keys, from its master to the
// master to, and returns once every node agrees (see Migration).
func (c *Cluster) MoveSlot(t testing.TB, key string, to *Server) {
	t.Helper()
	m := c.BeginMigration(t, key, to)
	m.MigrateKeys(t)
	m.Finish(t)
}

// OtherMaster returns a master of the cluster other than from, in the
// order the masters were started.
func (c *Cluster) OtherMaster(t testing.TB, from *Server) *Server {
	t.Helper()
	var top *topology
	c.await(t, func(tp *topology) error { top = tp; return nil })
	for _, s := range c.servers {
		if s != from && top.isMaster(s) {
			return s
		}
	}
	t.Fatal("redistest: no other master")
	return nil
}
