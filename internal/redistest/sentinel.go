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
	// every 2 s, and a failover reconfigures the replicas one by one. An
	// election whose vote was split is tried again only after the
	// failover-timeout, twice over, so a loaded machine may need several
	// rounds of it.
	sentinelSettleTimeout = 60 * time.Second
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
	if err := rc.ReplicaOf(ctx, "127.0.0.1", strconv.Itoa(master.port)).Err(); err != nil {
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
