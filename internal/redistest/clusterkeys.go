package redistest

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/redis/go-redis/v9"
)

// maxNameTries bounds how many names NamesOnDistinctMasters draws.
const maxNameTries = 1000

// MasterOf returns the node that serves key, as the nodes agree once the
// cluster is settled.
func (c *Cluster) MasterOf(t testing.TB, key string) *Server {
	t.Helper()
	var master *Server
	c.await(t, func(top *topology) error {
		rc := adminClient(top.masters[0].Addr())
		defer rc.Close()
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		slot, err := rc.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			return err
		}
		shards, err := rc.ClusterShards(ctx).Result()
		if err != nil {
			return err
		}
		for _, sh := range shards {
			if !slices.ContainsFunc(sh.Slots, func(r redis.SlotRange) bool { return r.Start <= slot && slot <= r.End }) {
				continue
			}
			j := slices.IndexFunc(sh.Nodes, func(n redis.Node) bool { return n.Role == "master" })
			if j < 0 {
				return fmt.Errorf("slot %d has no master", slot)
			}
			addr := net.JoinHostPort(sh.Nodes[j].IP, strconv.FormatInt(sh.Nodes[j].Port, 10))
			i := slices.IndexFunc(c.servers, func(s *Server) bool { return s.Addr() == addr })
			if i < 0 || !top.isMaster(c.servers[i]) {
				return fmt.Errorf("slot %d served by %s, not a master of the cluster", slot, addr)
			}
			master = c.servers[i]
			return nil
		}
		return fmt.Errorf("no node serves slot %d", slot)
	})
	return master
}

// NamesOnDistinctMasters returns n lock names, unique as by [Unique], whose
// keys (everything tagged {name}) live on n different masters of the
// cluster cc.
func NamesOnDistinctMasters(t testing.TB, cc *redis.ClusterClient, n int) []string {
	t.Helper()
	ctx := Ctx(t, queryTimeout)
	var names []string
	seen := map[string]bool{}
	for range maxNameTries {
		name := Unique(t)
		node, err := cc.MasterForKey(ctx, "{"+name+"}")
		if err != nil {
			t.Fatal(err)
		}
		if addr := node.Options().Addr; !seen[addr] {
			seen[addr] = true
			names = append(names, name)
			if len(names) == n {
				return names
			}
		}
	}
	t.Fatalf("found no %d names on distinct masters", n)
	return nil
}
