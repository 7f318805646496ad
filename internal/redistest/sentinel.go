package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

const (
	// sentinelMasterName is the name under which the sentinels of a
	// [Sentinel] deployment monitor its master.
	sentinelMasterName = "lockkit"
	// sentinelDownAfter is how long a master must fail to answer before a
	// sentinel considers it down (sentinel down-after-milliseconds).
	sentinelDownAfter = time.Second
	// sentinelFailoverTimeout is the sentinel failover-timeout.
	sentinelFailoverTimeout = 5 * time.Second
	// sentinelSettleTimeout bounds the wait for a deployment to settle:
	// replicas in sync and every sentinel agreeing on the master, its
	// replicas and the other sentinels. Sentinels introduce themselves
	// every 2 s, and a failover reconfigures the replicas one by one.
	sentinelSettleTimeout = 30 * time.Second
)

// Sentinel is a Redis Sentinel deployment on 127.0.0.1: one master, its
// replicas and the sentinels monitoring them. The master and the replicas
// are [Server]s, each in its own temporary directory with persistence
// disabled; the sentinels are redis-server processes in sentinel mode with
// a writable configuration file in theirs (down-after-milliseconds 1000,
// failover-timeout 5000, a quorum of a majority of the sentinels). Every
// process is killed in t.Cleanup.
type Sentinel struct {
	master    *Server   // the server started as the master
	replicas  []*Server // the servers started as replicas
	sentinels []*Server // in sentinel mode; never restarted (see launchSentinel)
	quorum    int
}

// StartSentinel starts a master, the given number of replicas of it and of
// sentinels monitoring it, and returns once every replica is in sync with
// the master and every sentinel knows the master, each replica and each
// other sentinel, so that a failover client works at once and a failover
// can be agreed on. It skips the test when redis-server is not installed
// (see the package documentation).
//
// A replica is made one with REPLICAOF once it answers; a replica that is
// restarted comes back as an empty master, which the sentinels turn back
// into a replica within seconds.
func StartSentinel(t testing.TB, replicas, sentinels int) *Sentinel {
	t.Helper()
	if replicas < 0 || sentinels < 1 {
		t.Fatalf("redistest: StartSentinel(%d replicas, %d sentinels): want at least one sentinel", replicas, sentinels)
	}
	servers := startServers(t, 1+replicas, nil)
	d := &Sentinel{master: servers[0], replicas: servers[1:], quorum: sentinels/2 + 1}
	for _, r := range d.replicas {
		if err := replicaOf(r, d.master); err != nil {
			t.Fatal(err)
		}
	}
	if err := settle(sentinelSettleTimeout, "replicas in sync", func() error {
		return d.checkReplication(d.master)
	}); err != nil {
		t.Fatal(err)
	}

	bin := requireRedis(t)
	d.sentinels = make([]*Server, sentinels)
	for i := range d.sentinels {
		d.sentinels[i] = newServer(t, false)
	}
	var g errgroup.Group
	for _, s := range d.sentinels {
		g.Go(func() error { return d.startSentinel(bin, s) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := settle(sentinelSettleTimeout, "the sentinels to know the deployment", func() error {
		return d.check(d.master)
	}); err != nil {
		t.Fatal(err)
	}
	return d
}

// MasterName returns the name under which the sentinels monitor the master.
func (d *Sentinel) MasterName() string { return sentinelMasterName }

// SentinelAddrs returns the addresses of the sentinels, "127.0.0.1:PORT".
func (d *Sentinel) SentinelAddrs() []string { return addrsOf(d.sentinels) }

// Master returns the server started as the master. After a failover it is
// a replica; [Sentinel.Failover] returns the new master.
func (d *Sentinel) Master() *Server { return d.master }

// Replicas returns the servers started as replicas.
func (d *Sentinel) Replicas() []*Server { return slices.Clone(d.replicas) }

// FailoverClient returns a new go-redis failover client that finds the
// master through the sentinels. It is closed in t.Cleanup.
func (d *Sentinel) FailoverClient(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    sentinelMasterName,
		SentinelAddrs: d.SentinelAddrs(),
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Failover asks a sentinel to fail over at once (SENTINEL FAILOVER, which
// needs no agreement of the others) and returns the new master once the
// deployment has settled again: every sentinel reports the new master's
// address, and every other running server, the old master included, is
// its replica and in sync. A write acknowledged by the old master after
// Failover returns is therefore impossible: it answers READONLY, on which
// go-redis clients reconnect to the master the sentinels name.
//
// Failover takes 10 to 30 s, most of it spent by the sentinels before they
// demote the old master: they let it report the master role for a while,
// and ask it every 10 s.
func (d *Sentinel) Failover(t testing.TB) *Server {
	t.Helper()
	return d.replaceMaster(t, "Failover", "the deployment to settle after the failover", func(ctx context.Context, sc *redis.SentinelClient, _ string) {
		// A sentinel refuses while it has not yet seen a replica fit to be
		// promoted (NOGOODSLAVE); that changes with its next look at them.
		if err := settle(sentinelSettleTimeout, "a sentinel to accept SENTINEL FAILOVER", func() error {
			return sc.Failover(ctx, sentinelMasterName).Err()
		}); err != nil {
			t.Fatal(err)
		}
	})
}

// KillMaster kills the current master with SIGKILL and returns the
// replica the sentinels promote, once the deployment has settled without
// it: every sentinel names the new master, and every other running server
// is its replica, in sync. The killed server stays stopped, and the
// sentinels keep it as a replica that is down. It takes a few seconds: a
// second before the sentinels find the master down
// (down-after-milliseconds), then their vote, then the promotion.
func (d *Sentinel) KillMaster(t testing.TB) *Server {
	t.Helper()
	return d.replaceMaster(t, "KillMaster", "a replica to take over from the killed master", func(_ context.Context, _ *redis.SentinelClient, old string) {
		i := slices.IndexFunc(d.servers(), func(s *Server) bool { return s.Addr() == old })
		if i < 0 {
			t.Fatalf("redistest: KillMaster: the sentinels name %s the master, not a server of the deployment", old)
		}
		d.servers()[i].Kill(t)
	})
}

// replaceMaster reads the master's address old from a sentinel, runs
// replace, which makes the sentinels promote another server, and returns
// the new master once the deployment has settled around it (see
// awaitNewMaster, which waits for what). op names the caller in a
// failure.
func (d *Sentinel) replaceMaster(t testing.TB, op, what string, replace func(ctx context.Context, sc *redis.SentinelClient, old string)) *Server {
	t.Helper()
	ctx := Ctx(t, sentinelSettleTimeout)
	sc := sentinelAdmin(d.sentinels[0].Addr())
	defer sc.Close()
	old, err := masterAddr(ctx, sc)
	if err != nil {
		t.Fatalf("redistest: %s: %v", op, err)
	}
	replace(ctx, sc, old)
	return d.awaitNewMaster(t, sc, old, what)
}

// awaitNewMaster waits until the sentinel sc names a master other than old
// and the deployment has settled around it (see check), and returns it.
func (d *Sentinel) awaitNewMaster(t testing.TB, sc *redis.SentinelClient, old, what string) *Server {
	t.Helper()
	ctx := Ctx(t, sentinelSettleTimeout)
	var master *Server
	if err := settle(sentinelSettleTimeout, what, func() error {
		addr, err := masterAddr(ctx, sc)
		if err != nil {
			return err
		}
		if addr == old {
			return fmt.Errorf("%s still names %s the master", d.sentinels[0].Addr(), old)
		}
		i := slices.IndexFunc(d.servers(), func(s *Server) bool { return s.Addr() == addr })
		if i < 0 {
			return fmt.Errorf("the sentinels name %s the master, not a server of the deployment", addr)
		}
		master = d.servers()[i]
		return d.check(master)
	}); err != nil {
		t.Fatal(err)
	}
	return master
}

// servers returns the master and the replicas, as started.
func (d *Sentinel) servers() []*Server {
	return append([]*Server{d.master}, d.replicas...)
}

// check returns nil when master and its running replicas are in sync and
// every sentinel names master the master, with no failover in progress,
// and knows every other running server as a replica in sync and every
// other sentinel. A stopped server is left out: the sentinels keep it
// among the replicas, flagged down, until it comes back.
func (d *Sentinel) check(master *Server) error {
	if err := d.checkReplication(master); err != nil {
		return err
	}
	var want, stopped []string
	for _, s := range d.servers() {
		switch {
		case s == master:
		case s.running():
			want = append(want, s.Addr())
		default:
			stopped = append(stopped, s.Addr())
		}
	}
	slices.Sort(want)
	for _, s := range d.sentinels {
		if err := d.checkSentinel(s.Addr(), master.Addr(), want, stopped); err != nil {
			return fmt.Errorf("sentinel %s: %w", s.Addr(), err)
		}
	}
	return nil
}

// checkSentinel checks what the sentinel at addr knows: master is the
// master, its flags say nothing but "master", replicas (sorted) are its
// replicas, each in sync, besides those at the stopped addresses, and it
// knows every other sentinel.
func (d *Sentinel) checkSentinel(addr, master string, replicas, stopped []string) error {
	sc := sentinelAdmin(addr)
	defer sc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if got, err := masterAddr(ctx, sc); err != nil || got != master {
		return fmt.Errorf("master address %q (%v), want %s", got, err, master)
	}
	m, err := sc.Master(ctx, sentinelMasterName).Result()
	if err != nil {
		return err
	}
	if m["flags"] != "master" {
		return fmt.Errorf("master flags %q", m["flags"])
	}
	if got, want := m["num-other-sentinels"], strconv.Itoa(len(d.sentinels)-1); got != want {
		return fmt.Errorf("knows %s other sentinels, want %s", got, want)
	}
	rs, err := sc.Replicas(ctx, sentinelMasterName).Result()
	if err != nil {
		return err
	}
	var got []string
	for _, r := range rs {
		a := hostPortOf(r["ip"], r["port"])
		if slices.Contains(stopped, a) {
			continue
		}
		if r["flags"] != "slave" || r["master-link-status"] != "ok" || hostPortOf(r["master-host"], r["master-port"]) != master {
			return fmt.Errorf("replica %s: flags %q, link %q, master %s:%s",
				a, r["flags"], r["master-link-status"], r["master-host"], r["master-port"])
		}
		got = append(got, a)
	}
	slices.Sort(got)
	if !slices.Equal(got, replicas) {
		return fmt.Errorf("knows replicas %q, want %q", got, replicas)
	}
	return nil
}

// checkReplication returns nil when master reports the role of master with
// every other running server connected, and every other running server
// reports being its replica with the link up.
func (d *Sentinel) checkReplication(master *Server) error {
	info, err := replicationInfo(master)
	if err != nil {
		return err
	}
	if role, _ := infoField(info, "role"); role != "master" {
		return fmt.Errorf("%s: role %q, want master", master.Addr(), role)
	}
	others := 0
	for _, s := range d.servers() {
		if s == master || !s.running() {
			continue
		}
		others++
		info, err := replicationInfo(s)
		if err != nil {
			return err
		}
		role, _ := infoField(info, "role")
		host, _ := infoField(info, "master_host")
		port, _ := infoField(info, "master_port")
		link, _ := infoField(info, "master_link_status")
		if role != "slave" || hostPortOf(host, port) != master.Addr() || link != "up" {
			return fmt.Errorf("%s: role %q of %s:%s, link %q; want a replica of %s in sync",
				s.Addr(), role, host, port, link, master.Addr())
		}
	}
	if n, _ := infoField(info, "connected_slaves"); n != strconv.Itoa(others) {
		return fmt.Errorf("%s: %s connected replicas, want %d", master.Addr(), n, others)
	}
	return nil
}

// startSentinel performs the first start of s in sentinel mode, choosing a
// free port and retrying with another one if the port is taken before the
// sentinel binds it, as [Server.start] does.
func (d *Sentinel) startSentinel(bin string, s *Server) error {
	return s.startOn(false, func(port int) error { return d.launchSentinel(bin, s, port) })
}

// launchSentinel writes the configuration file of a sentinel on port
// monitoring the master and starts `redis-server FILE --sentinel` with it,
// then waits until it answers, as [Server.launch] does for a server. The
// sentinel rewrites the file as it learns the deployment. The caller holds
// s.mu. s is a [Server] only for its directory, log, process and cleanup:
// its Restart would start a plain server, which is why the sentinels are
// not handed out.
func (d *Sentinel) launchSentinel(bin string, s *Server, port int) error {
	conf := filepath.Join(s.dir, "sentinel.conf")
	text := strings.Join([]string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"daemonize no",
		"dir " + s.dir,
		"sentinel resolve-hostnames no",
		fmt.Sprintf("sentinel monitor %s 127.0.0.1 %d %d", sentinelMasterName, d.master.port, d.quorum),
		fmt.Sprintf("sentinel down-after-milliseconds %s %d", sentinelMasterName, sentinelDownAfter.Milliseconds()),
		fmt.Sprintf("sentinel failover-timeout %s %d", sentinelMasterName, sentinelFailoverTimeout.Milliseconds()),
		"",
	}, "\n")
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		return fmt.Errorf("redistest: %w", err)
	}
	return s.exec("sentinel", port, bin, conf, "--sentinel")
}

// replicaOf makes r a replica of master.
func replicaOf(r, master *Server) error {
	rc := adminClient(r.Addr())
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if err := rc.SlaveOf(ctx, "127.0.0.1", strconv.Itoa(master.port)).Err(); err != nil {
		return fmt.Errorf("redistest: REPLICAOF on %s: %w", r.Addr(), err)
	}
	return nil
}

// replicationInfo returns the INFO replication section of s.
func replicationInfo(s *Server) (string, error) {
	rc := adminClient(s.Addr())
	defer rc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	info, err := rc.Info(ctx, "replication").Result()
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Addr(), err)
	}
	return info, nil
}

// sentinelAdmin returns a client for the harness's own commands to the
// sentinel at addr, bounded and never retried like [adminClient]. The
// caller closes it.
func sentinelAdmin(addr string) *redis.SentinelClient {
	return redis.NewSentinelClient(adminOptions(addr))
}

// masterAddr returns the master address the sentinel sc reports.
func masterAddr(ctx context.Context, sc *redis.SentinelClient) (string, error) {
	hp, err := sc.GetMasterAddrByName(ctx, sentinelMasterName).Result()
	if err != nil {
		return "", err
	}
	if len(hp) != 2 {
		return "", fmt.Errorf("SENTINEL GET-MASTER-ADDR-BY-NAME replied %q", hp)
	}
	return hostPortOf(hp[0], hp[1]), nil
}

// hostPortOf joins host and port as "host:port".
func hostPortOf(host, port string) string { return net.JoinHostPort(host, port) }

// addrsOf returns the addresses of servers.
func addrsOf(servers []*Server) []string {
	addrs := make([]string, len(servers))
	for i, s := range servers {
		addrs[i] = s.Addr()
	}
	return addrs
}

// settle calls check every 20 ms until it returns nil, and returns its
// last error, naming what it waited for, if that does not happen within
// timeout.
func settle(timeout time.Duration, what string, check func() error) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redistest: timed out after %v waiting for %s: %w", timeout, what, err)
		}
		<-tick.C
	}
}
