package faultmatrix_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// outEnv names the file the table is also written to.
const outEnv = "LOCKKIT_MATRIX_OUT"

// kindsEnv, when set, names the kinds to run, separated by commas (all by
// default).
const kindsEnv = "LOCKKIT_MATRIX_KINDS"

// lockOptions are the options of every Client of the matrix.
func lockOptions() []lockkit.Option {
	return []lockkit.Option{lockkit.WithWatchdogTimeout(lease)}
}

// fault is a row group of the matrix: one fault injected into a lock of
// every kind at once.
type fault struct {
	name string
	// fenced is set where the topology promises only that stale holders
	// are fenced off (the lock's data can be lost without its holder being
	// told first): there, overlaps and refused stale calls are counted,
	// not violations; the fenced counter must still lose nothing.
	fenced bool
	// detection and takeover say which times the cell measures.
	detection, takeover bool
	// inject runs the workers and the victims of runs through the fault;
	// it returns a Client with which to check that each lock ends free.
	inject func(t *testing.T, e *cellEnv) *lockkit.Client
}

// cellEnv is what a fault gets: the checker's server and a run per kind.
type cellEnv struct {
	storeAddr string
	runs      []*run
}

// faults are the rows of the matrix.
var faults = []fault{
	{name: "holder SIGKILL", takeover: true, inject: holderKilled},
	{name: "Redis restart", fenced: true, detection: true, takeover: true, inject: redisRestart},
	{name: "pause > lease", detection: true, takeover: true, inject: redisPause},
	{name: "latency 20±10 ms", inject: latency},
	{name: "cut > lease", detection: true, takeover: true, inject: cut},
	{name: "cancel storm", inject: cancelStorm},
	{name: "Sentinel failover", fenced: true, detection: true, takeover: true, inject: sentinelFailover},
	{name: "Cluster failover (SIGKILL)", fenced: true, detection: true, takeover: true, inject: clusterKill},
	{name: "Cluster failover (CLUSTER FAILOVER)", takeover: true, inject: clusterFailover},
}

// holderKilled: a child process holds each lock and is killed with
// SIGKILL; the workers take over once its lease ends.
func holderKilled(t *testing.T, e *cellEnv) *lockkit.Client {
	s := redistest.StartServer(t)
	lc := redistest.Lockkit(t, s.Client(t), lockOptions()...)
	children := make([]*redistest.Child, len(e.runs))
	for i, r := range e.runs {
		children[i] = redistest.StartChild(t, "holder", r.k.name, s.Addr(), e.storeAddr, r.name)
	}
	for _, ch := range children {
		ch.WaitLine(t, "held", eventBound)
	}
	for i, r := range e.runs {
		r.startWorkers(t, lc)
		r.markFault()
		children[i].Kill(t)
	}
	for _, r := range e.runs {
		r.awaitHolds(t, roundsAfter)
		r.awaitTakeover(t)
	}
	return lc
}

// redisRestart: the server restarts empty while the victims hold the
// locks and the workers wait.
func redisRestart(t *testing.T, e *cellEnv) *lockkit.Client {
	s := redistest.StartServer(t)
	lc, victims := holdVictims(t, e, s.Client(t), s.Client(t))
	s.Restart(t)
	return after(t, e, lc, victims, nil)
}

// redisPause: the server stops answering (DEBUG SLEEP) for longer than
// the lease while the victims hold the locks.
func redisPause(t *testing.T, e *cellEnv) *lockkit.Client {
	s := redistest.StartServer(t)
	lc, victims := holdVictims(t, e, s.Client(t), s.Client(t))
	s.Stall(t, 5*lease/2)
	return after(t, e, lc, victims, nil)
}

// latency: every client talks to the server through a proxy that adds
// 20 ± 10 ms to each round trip.
func latency(t *testing.T, e *cellEnv) *lockkit.Client {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	p.SetDelay(5*time.Millisecond, 15*time.Millisecond) // each way
	lc := redistest.Lockkit(t, proxied(t, p), lockOptions()...)
	markAll(e)
	for _, r := range e.runs {
		r.startWorkers(t, lc)
	}
	for _, r := range e.runs {
		r.awaitHolds(t, roundsAfter)
	}
	return lc
}

// cut: the victims' client talks to the server through a proxy that stops
// forwarding while they hold the locks; the workers, on a client of their
// own, take over once the leases end, and only then is the proxy healed.
func cut(t *testing.T, e *cellEnv) *lockkit.Client {
	s := redistest.StartServer(t)
	p := redistest.StartProxy(t, s.Addr())
	lc, victims := holdVictims(t, e, s.Client(t), proxied(t, p))
	p.Cut()
	return after(t, e, lc, victims, p.Heal)
}

// cancelStorm: besides the workers, owners whose Lock calls are cancelled
// at a random moment within 30 ms lock in a loop.
func cancelStorm(t *testing.T, e *cellEnv) *lockkit.Client {
	const stormers, holds = 6, 20
	s := redistest.StartServer(t)
	lc := redistest.Lockkit(t, s.Client(t), lockOptions()...)
	markAll(e)
	for _, r := range e.runs {
		r.startWorkers(t, lc)
		for i := range stormers {
			o := r.k.owner(lc, r.name, workers+1+i)
			r.wg.Go(func() { r.work(o, func() time.Duration { return rand.N(30 * time.Millisecond) }) })
		}
	}
	for _, r := range e.runs {
		r.awaitHolds(t, holds)
	}
	return lc
}

// sentinelFailover: the master of a Sentinel deployment (one replica,
// three sentinels) is killed with SIGKILL while the victims hold the
// locks; the clients are go-redis failover clients.
func sentinelFailover(t *testing.T, e *cellEnv) *lockkit.Client {
	d := redistest.StartSentinel(t, 1, 3)
	lc, victims := holdVictims(t, e, d.FailoverClient(t), d.FailoverClient(t))
	d.KillMaster(t)
	return after(t, e, lc, victims, nil)
}

// clusterKill: in a Cluster of three masters with a replica each, the
// master of every lock is killed with SIGKILL while the victims hold the
// locks; its replica takes over after the node timeout (1 s) and an
// election, longer than the lease, so every victim is told it lost its
// lock. The clients are cluster clients, whose waiters sleep on shard
// channels of the killed master: their connection breaks, and they
// subscribe again at the replica once it serves the slots.
func clusterKill(t *testing.T, e *cellEnv) *lockkit.Client {
	cl, master, lc, victims := holdOnCluster(t, e)
	cl.KillMaster(t, master)
	return after(t, e, lc, victims, nil)
}

// clusterFailover: as clusterKill, but the replica takes over with
// CLUSTER FAILOVER, which loses no write and is quicker than the lease:
// the holds survive (a victim told it lost its hold is no violation), so
// the checker is as strict as on a single server. The victims then
// release their locks, and the takeover is measured from there: the
// workers, blocked since before the failover, sleep on shard channels
// subscribed at the old master, now a replica of the same shard, which
// keeps them and still receives the shard's messages, until their Client
// subscribes them again at the new master (within a health interval).
func clusterFailover(t *testing.T, e *cellEnv) *lockkit.Client {
	cl, master, lc, victims := holdOnCluster(t, e)
	cl.Failover(t, master)
	for i, v := range victims {
		e.runs[i].takeover.Store(0)
		e.runs[i].markFault()
		v.release()
	}
	for _, r := range e.runs {
		r.awaitHolds(t, roundsAfter)
	}
	return lc
}

// holdOnCluster starts a Cluster of three masters with a replica each,
// moves the lock of every run of e onto one master, and has the victims
// hold them; it returns the Cluster, that master, and the workers' Client
// and the victims that holdVictims returns.
func holdOnCluster(t *testing.T, e *cellEnv) (*redistest.Cluster, *redistest.Server, *lockkit.Client, []*victim) {
	cl := redistest.StartClusterWithReplicas(t)
	master := onMaster(t, e, cl)
	lc, victims := holdVictims(t, e, cl.Client(t), cl.Client(t))
	return cl, master, lc, victims
}

// onMaster renames every run of e so that its lock (every member of a
// multi-lock) lives on one master of cl, and returns that master. A
// multi-lock with a member on another master would stay half held by its
// victim, told of the loss of the other member, until the victim unlocks
// it: no worker could take it over before.
func onMaster(t *testing.T, e *cellEnv, cl *redistest.Cluster) *redistest.Server {
	const attempts = 1000 // names drawn per run
	master := cl.Servers()[0]
	cc := cl.Client(t)
	ctx := redistest.Ctx(t, callBound)
	for _, r := range e.runs {
		for i := 0; ; i++ {
			if i == attempts {
				t.Fatalf("%s: no name found on master %s", r.k.name, master.Addr())
			}
			name := redistest.Unique(t)
			if !slices.ContainsFunc(r.k.names(name), func(n string) bool {
				m, err := cc.MasterForKey(ctx, "{"+n+"}")
				if err != nil {
					t.Fatalf("MasterForKey: %v", err)
				}
				return m.Options().Addr != master.Addr()
			}) {
				r.rename(name)
				break
			}
		}
	}
	return master
}

// proxied returns a client of the server behind p, closed in t.Cleanup.
func proxied(t *testing.T, p *redistest.Proxy) redis.UniversalClient {
	c := redis.NewClient(&redis.Options{Addr: p.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// holdVictims makes a Client of the workers on wc and one of the victims
// on vc, starts the workers, waits until each lock has been held, takes
// each lock as its victim and records the fault's moment, which the caller
// brings about next. It returns the workers' Client and the victims.
func holdVictims(t *testing.T, e *cellEnv, wc, vc redis.UniversalClient) (*lockkit.Client, []*victim) {
	lc := redistest.Lockkit(t, wc, lockOptions()...)
	vlc := redistest.Lockkit(t, vc, lockOptions()...)
	for _, r := range e.runs {
		r.startWorkers(t, lc)
	}
	victims := make([]*victim, len(e.runs))
	for i, r := range e.runs {
		r.awaitHolds(t, 1)
		r.startCompanion(vlc)
		victims[i] = r.holdVictim(t, vlc)
	}
	markAll(e)
	return lc, victims
}

// markAll records the fault's moment in every run.
func markAll(e *cellEnv) {
	for _, r := range e.runs {
		r.markFault()
	}
}

// after waits until every victim is told it lost its lock and every lock
// has been taken over, then calls heal (if any) and releases the victims.
func after(t *testing.T, e *cellEnv, lc *lockkit.Client, victims []*victim, heal func()) *lockkit.Client {
	for i, r := range e.runs {
		victims[i].awaitLost(t)
		r.awaitHolds(t, roundsAfter)
		r.awaitTakeover(t)
	}
	if heal != nil {
		heal()
	}
	for _, v := range victims {
		v.release()
	}
	return lc
}

// row is one cell of the matrix.
type row struct {
	fault, kind                   string
	holds                         int64
	violations, overlaps, refused int
	lostOnReturn                  int
	stuck, leaked                 int
	detection, takeover           string
}

// TestFaultMatrix runs every kind through every fault and checks each
// cell: no violation (no overlap with a holder not told of its loss, no
// lost update, no stale token accepted, each lock free at the end; where
// only fencing is promised, overlaps are counted and the fenced store
// must lose nothing), no call that outlived its ctx, no goroutine left
// behind. It prints the table and writes it to $LOCKKIT_MATRIX_OUT if
// set. The faults run one after the other so that leaked goroutines are
// told apart; the kinds of one fault run at once.
func TestFaultMatrix(t *testing.T) {
	var (
		mu   sync.Mutex
		rows []row
	)
	for _, f := range faults {
		ignore := goleak.IgnoreCurrent()
		var cells []row
		t.Run(strings.ReplaceAll(f.name, " ", "_"), func(t *testing.T) {
			cells = runFault(t, f)
		})
		leaked := 0
		if err := redistest.LeftBehind(ignore); err != nil {
			leaked = max(1, strings.Count(err.Error(), "[Goroutine "))
			t.Errorf("%s: goroutines left behind: %v", f.name, err)
		}
		mu.Lock()
		for _, c := range cells {
			c.leaked = leaked
			rows = append(rows, c)
		}
		mu.Unlock()
	}
	table := render(rows)
	t.Log("\n" + table)
	if path := os.Getenv(outEnv); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Errorf("writing the table: %v", err)
		}
	}
}

// runFault runs one fault on every kind and returns its cells.
func runFault(t *testing.T, f fault) []row {
	store := redistest.StartServer(t)
	sc := store.Client(t)
	e := &cellEnv{storeAddr: store.Addr()}
	only := os.Getenv(kindsEnv)
	for _, k := range kinds() {
		if only == "" || slices.Contains(strings.Split(only, ","), k.name) {
			e.runs = append(e.runs, newRun(t, k, sc))
		}
	}
	lc := f.inject(t, e)
	for _, r := range e.runs {
		r.awaitHandoffs(t)
	}
	for _, r := range e.runs {
		r.finish(t)
	}
	var cells []row
	for _, r := range e.runs {
		c := row{fault: f.name, kind: r.k.name, holds: r.holds.Load(), stuck: int(r.stuck.Load()),
			detection: "—", takeover: "—"}
		v, err := r.chk.verdict(redistest.Ctx(t, callBound))
		if err != nil {
			t.Errorf("%s: %v", r.k.name, err)
			c.violations++
		}
		c.overlaps, c.refused, c.lostOnReturn = v.overlaps, v.refused, v.lostOnReturn
		c.violations += v.lostFenced
		if !f.fenced {
			c.violations += v.overlaps + v.refused + v.lostPlain
		}
		if !r.free(t, lc) {
			c.violations++
		}
		if f.detection {
			c.detection = ms(r.detected.Load())
		}
		if f.takeover {
			c.takeover = ms(r.takeover.Load())
		}
		if r.k.cohort {
			t.Logf("%s, %s: %d hand-overs in memory after the fault", f.name, r.k.name, r.handoffs.Load())
		}
		for _, l := range r.chk.log {
			t.Logf("%s, %s: %s", f.name, r.k.name, l)
		}
		if c.violations != 0 || c.stuck != 0 {
			t.Errorf("%s, %s: %d violations (%+v), %d stuck calls", f.name, r.k.name, c.violations, v, c.stuck)
		}
		cells = append(cells, c)
	}
	return cells
}

// ms formats ns as milliseconds, rounded to 10 ms.
func ms(ns int64) string {
	return fmt.Sprintf("%d ms", time.Duration(ns).Round(10*time.Millisecond).Milliseconds())
}

// render returns the markdown table of rows.
func render(rows []row) string {
	var b strings.Builder
	b.WriteString("| fault | kind | holds | violations | overlaps (fenced) | stale calls refused | holds lost on return | stuck calls | leaked goroutines | detection | takeover |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %s | %s |\n",
			r.fault, r.kind, r.holds, r.violations, r.overlaps, r.refused, r.lostOnReturn, r.stuck, r.leaked, r.detection, r.takeover)
	}
	return b.String()
}
