// Package redistest is the test harness shared by lockkit's tests.
//
// It starts real redis-server processes (standalone servers and a small
// Redis Cluster) on free loopback ports, embedded miniredis instances,
// and child processes that re-execute the test binary so that tests can
// exercise several lock holders in separate processes. It also provides a
// go-redis hook that counts the commands a client sends.
//
// On top of that it holds the plumbing the lock packages' tests share:
//
//   - running a test on several kinds of Redis ([Backend],
//     [ForEachBackend]) and reaching the miniredis behind a client
//     ([MiniFor]);
//   - waiting with a deadline that fails loudly ([Ctx], [Eventually],
//     [Receive]);
//   - checking a lock ([MustLock], [MustUnlock], [WantHoldCount],
//     [WantErr], [AssertClean]);
//   - injecting faults ([DropReply]) and counting commands
//     ([CountCommands]);
//   - mutual exclusion across processes ([CountingChild], [CountRun],
//     [ClientSpec]), on cluster masters ([NamesOnDistinctMasters]), and
//     the common benchmarks ([BenchLockUnlock], [BenchContended],
//     [ReportWaits]).
//
// The package is meant to be imported only from _test.go files. Every
// resource it starts is stopped in t.Cleanup. Tests that need redis-server
// call [Require] (the Start functions do so themselves), which skips the
// test when redis-server and redis-cli are not installed, or fails it when
// the environment variable LOCKKIT_REQUIRE_REDIS is set to 1.
//
// A package that uses the multi-process helpers must route its TestMain
// through [Main]:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
package redistest
