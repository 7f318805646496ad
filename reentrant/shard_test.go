package reentrant_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestUnlock_on_a_Cluster_publishes_within_the_shard checks what the
// wake-ups of releases cost a Cluster of three masters with a replica
// each: they go out on shard channels, which the master of the lock's slot
// passes to its own replica alone (one cluster-bus message per publish,
// about one per release), where a classic PUBLISH is relayed to every
// other node (five).
func TestUnlock_on_a_Cluster_publishes_within_the_shard(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t)
	dial := func(t testing.TB) redis.UniversalClient { return cl.Client(t) }
	holder := holding(t, dial)
	const rounds = 10
	publish, shard := busMessages(t, cl)
	for range rounds {
		// Two publishes a round: the holder's release wakes the waiting
		// process, whose release finds nobody waiting.
		done := processes(t, dial, redistest.NewCounter(), holder.Name(), 1)
		releaseToProcess(t, holder, done)
		redistest.MustLock(t, holder)
	}
	publish2, shard2 := busMessages(t, cl)
	if n := publish2 - publish; n != 0 {
		t.Errorf("%d classic publish messages on the cluster bus for %d releases, want 0", n, 2*rounds)
	}
	// One message to the slot's replica per publish: a publish per release,
	// and now and then one more (a wake-up handed on), where a classic
	// PUBLISH costs five.
	if n := shard2 - shard; n < 2*rounds || n > 3*rounds {
		t.Errorf("%d shard publish messages on the cluster bus for %d releases, want %d to %d (one to the slot's replica each)", n, 2*rounds, 2*rounds, 3*rounds)
	}
	t.Logf("%d releases: %d classic, %d shard publish messages on the cluster bus", 2*rounds, publish2-publish, shard2-shard)
}

// busMessages returns how many classic and shard publish messages the
// nodes of cl have sent each other over the cluster bus so far.
func busMessages(t *testing.T, cl *redistest.Cluster) (publish, shard int64) {
	t.Helper()
	ctx := redistest.Ctx(t, 10*time.Second)
	for _, s := range cl.Servers() {
		info, err := s.Client(t).ClusterInfo(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(info, "\r\n") {
			k, v, _ := strings.Cut(line, ":")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "cluster_stats_messages_publish_sent":
				publish += n
			case "cluster_stats_messages_publishshard_sent":
				shard += n
			}
		}
	}
	return publish, shard
}
