package watchdog

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// shards groups batch by the shard that serves each hold: on a
// [redis.ClusterClient], the master of the hold's first key by the
// client's cached slot map; on any other client, one shard for all. A key
// whose master is unknown goes with the others of its kind, and the
// client routes it.
func (w *Watchdog) shards(batch []renewal) [][]renewal {
	cc, ok := w.client.(*redis.ClusterClient)
	if !ok {
		return [][]renewal{batch}
	}
	ctx, cancel := context.WithTimeout(context.Background(), maxCallTimeout)
	defer cancel()
	index := map[string]int{}
	var shards [][]renewal
	for _, r := range batch {
		addr := ""
		if keys := r.h.lease.Keys; len(keys) > 0 {
			if node, err := cc.MasterForKey(ctx, keys[0]); err == nil {
				addr = node.Options().Addr
			}
		}
		i, seen := index[addr]
		if !seen {
			i = len(shards)
			index[addr] = i
			shards = append(shards, nil)
		}
		shards[i] = append(shards[i], r)
	}
	return shards
}
