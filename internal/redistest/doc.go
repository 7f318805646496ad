// Package redistest is the test harness shared by lockkit's tests: real
// redis-server processes on free 127.0.0.1 ports, embedded miniredis, child
// processes that re-execute the test binary, faults, and the helpers every
// lock test needs.
//
// It offers, file by file:
//
//   - servers.go: a standalone redis-server ([StartServer]) or N
//     independent masters ([StartMasters]), each a [Server] that a test can
//     [Server.Stop], [Server.Kill] and [Server.Restart] (same port, empty
//     data set); stall.go: [Server.Stall] (the server stops answering for a
//     while); launch.go, ready.go and admin.go: how a process is found on
//     PATH and started on a free port, waited for, and spoken to by the
//     harness;
//   - cluster.go: a Redis Cluster of three masters ([StartCluster],
//     [Cluster]), or of three masters with a replica each
//     ([StartClusterWithReplicas]); clustertopology.go: waiting until the
//     nodes agree; clusterfailover.go: failovers that wait until the nodes
//     agree on the new master ([Cluster.Failover] with CLUSTER FAILOVER,
//     [Cluster.KillMaster] with SIGKILL); clusterkeys.go: the master of a
//     key ([Cluster.MasterOf]) and lock names whose keys live on distinct
//     masters ([NamesOnDistinctMasters]); clustermigrate.go: a slot moved
//     with its keys to another master step by step ([Cluster.BeginMigration],
//     [Migration], [Cluster.MoveSlot]); clusteradd.go: a master added
//     without slots ([Cluster.AddMaster]);
//   - sentinel.go: a Sentinel deployment of a master, its replicas and the
//     sentinels monitoring them ([StartSentinel], [Sentinel]), with a
//     failover client ([Sentinel.FailoverClient]); sentinelfailover.go:
//     failovers that wait until the deployment has settled, forced
//     ([Sentinel.Failover]) or after a SIGKILL of the master
//     ([Sentinel.KillMaster]); sentinelcheck.go: what settled means;
//   - backends.go: a test run on several kinds of Redis ([Backend],
//     [Backends], [SingleNode], [ForEachBackend], [MiniBackend], [ServerBackend],
//     [ClusterBackend]), an embedded miniredis ([Mini]) and the miniredis
//     behind a client ([MiniFor]);
//   - children.go: child processes running a function of the test binary
//     ([StartChild], [Child]); childside.go: what such a child calls to
//     talk to its test ([ChildPrintf], [ChildLines], [ChildFatalf],
//     [ChildAtoi]);
//   - clientspec.go: a description of a client that a child can take as an
//     argument ([ClientSpec], [SpecClient]);
//   - counting.go: mutual exclusion checked across processes
//     ([CountingChild], [CountRun]);
//   - oneshot.go, heldup.go, counter.go, silence.go: go-redis hooks for a
//     reply lost on its way back ([DropReply], [ErrReplyDropped]), a
//     command never sent ([RefuseSend], [ErrNotSent]), a script sent twice
//     ([ResendScript]), a command held up in the network and delivered
//     later ([HoldUp], [ErrHeldUp]), a count of the commands a client
//     sends ([Counter], [CountCommands]), and a server that seems to stop
//     answering ([Silence]);
//   - proxy.go: a TCP proxy in front of a server that delays what it
//     forwards or stops forwarding, as a slow or partitioned network does
//     ([StartProxy], [Proxy]); gate.go: what Proxy and Silence hold
//     traffic up with;
//   - helpers.go: what the helpers need of a lock ([Locker], [NamedLocker],
//     [TokenLocker]), checking a lock ([MustLock], [MustUnlock],
//     [WantHoldCount], [WantErr], [AssertClean], [AssertCleanWithin]),
//     unique lock names ([Unique]) and whether a hold's lost signal has
//     fired ([Closed], [AnyClosed]); wait.go: waiting with a deadline that fails loudly
//     ([Ctx], [Eventually], [Receive], [LockAsync]), and calls that must
//     return at their deadline ([WantDeadlines]); hammer.go: mutual
//     exclusion within a process ([Hammer], [ErrOverlap]);
//   - closerace.go: lock values shared between goroutines while their
//     Client closes at a seeded random point ([CloseRace], [Round],
//     [Racer], [RaceSeed], [Outcome], [StepOutcome], [AfterClose]);
//     lockrace.go: the goroutines of such a race over exclusive locks
//     ([LockRace], [RaceRules]); sharedrace.go: such races over an
//     exclusive kind, for each way its values may be shared ([RaceLocks],
//     [RaceShared]); latency.go: commands made slower ([AddLatency]);
//   - bench.go: the common benchmarks ([BenchLockUnlock], [BenchContended],
//     [ReportWaits]) and the floor they measure a lock against ([Floor]);
//     cost.go: what an op costs the server (CPU, commands run inside
//     scripts included) and the benchmark's own process (CPU);
//   - lockkit.go: a lockkit Client closed in cleanup ([Lockkit]);
//   - main.go: the body of TestMain ([Main]) with the package's child
//     entry points ([Children]) and goroutine leak detection.
//
// The package is meant to be imported only from tests. It keeps no
// registry: what it starts belongs to the test that started it, is held by
// the values it returns, and is stopped in that test's t.Cleanup; it only
// ever signals processes it started itself, by pid. Everything that needs redis-server skips the test when
// redis-server is not installed, or fails it when the environment variable
// LOCKKIT_REQUIRE_REDIS is set to 1, as CI does.
//
// Every package that uses the harness routes its TestMain through [Main]:
//
//	func TestMain(m *testing.M) { redistest.Main(m, nil) }
package redistest
