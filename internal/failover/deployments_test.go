package failover_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// deployment is Redis with replicas, ready to be failed over.
type deployment struct {
	// client returns a new go-redis client of the deployment, closed in
	// t.Cleanup.
	client func(t testing.TB) redis.UniversalClient
	// affected reports whether the failover moves the keys of lock name;
	// nil means every lock's.
	affected func(name string) bool
	// replicated returns once the replicas have every write so far.
	replicated func(t testing.TB)
	// failover fails the deployment over and returns once it has settled.
	failover func(t testing.TB)
	// follow returns once rc, a client of the deployment, sends the
	// commands of the failed-over master to the new one (a failover
	// client follows the sentinels by itself).
	follow func(t testing.TB, rc redis.UniversalClient)
	// lossless is set when the failover loses no write the master
	// acknowledged, replicated or not (CLUSTER FAILOVER).
	lossless bool
}

// deployments are the ways of failing over that every kind is put through.
var deployments = []struct {
	name  string
	start func(t *testing.T) deployment
}{
	{"sentinel/SENTINEL_FAILOVER", func(t *testing.T) deployment {
		d := redistest.StartSentinel(t, 1, 3)
		return sentinel(d, func(t testing.TB) { d.Failover(t) })
	}},
	{"sentinel/SIGKILL_master", func(t *testing.T) deployment {
		d := redistest.StartSentinel(t, 2, 3)
		return sentinel(d, func(t testing.TB) { d.KillMaster(t) })
	}},
	{"cluster/CLUSTER_FAILOVER", func(t *testing.T) deployment {
		cl := redistest.StartClusterWithReplicas(t)
		d := cluster(t, cl, func(t testing.TB, m *redistest.Server) { cl.Failover(t, m) })
		d.lossless = true
		return d
	}},
	{"cluster/SIGKILL_master", func(t *testing.T) deployment {
		cl := redistest.StartClusterWithReplicas(t)
		return cluster(t, cl, func(t testing.TB, m *redistest.Server) { cl.KillMaster(t, m) })
	}},
}

func sentinel(d *redistest.Sentinel, failover func(testing.TB)) deployment {
	return deployment{
		client:     func(t testing.TB) redis.UniversalClient { return d.FailoverClient(t) },
		replicated: d.WaitReplicated,
		failover:   failover,
		follow:     func(testing.TB, redis.UniversalClient) {},
	}
}

// cluster fails over the first master, where it places the locks.
func cluster(t *testing.T, cl *redistest.Cluster, failover func(testing.TB, *redistest.Server)) deployment {
	target := cl.Servers()[0]
	cc := cl.Client(t)
	on := func(cc *redis.ClusterClient, key string) bool {
		m, err := cc.MasterForKey(t.Context(), key)
		if err != nil {
			t.Fatalf("MasterForKey(%q): %v", key, err)
		}
		return m.Options().Addr == target.Addr()
	}
	probe := "{" + pickName(t, kind{names: single}, deployment{affected: func(name string) bool { return on(cc, "{"+name+"}") }}) + "}"
	return deployment{
		client:     func(t testing.TB) redis.UniversalClient { return cl.Client(t) },
		affected:   func(name string) bool { return on(cc, "{"+name+"}") },
		replicated: cl.WaitReplicated,
		failover:   func(t testing.TB) { failover(t, target) },
		follow: func(t testing.TB, rc redis.UniversalClient) {
			c := rc.(*redis.ClusterClient)
			redistest.Eventually(t, settleBound, "the client to follow the failover", func() bool {
				c.ReloadState(t.Context())
				return !on(c, probe)
			})
		},
	}
}

// eachDeployment runs test as a parallel subtest on each of deployments,
// started afresh for it.
func eachDeployment(t *testing.T, test func(t *testing.T, d deployment)) {
	for _, dep := range deployments {
		t.Run(dep.name, func(t *testing.T) {
			t.Parallel()
			test(t, dep.start(t))
		})
	}
}
