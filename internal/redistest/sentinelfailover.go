package redistest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

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
