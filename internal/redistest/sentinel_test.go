package redistest

import (
	"strings"
	"testing"
)

func TestSentinel_FailoverClient_writes_across_a_failover(t *testing.T) {
	d := StartSentinel(t, 1, 3)
	if d.MasterName() == "" || len(d.SentinelAddrs()) != 3 || len(d.Replicas()) != 1 {
		t.Fatalf("MasterName %q, SentinelAddrs %q, %d replicas; want a name, 3 sentinels and 1 replica",
			d.MasterName(), d.SentinelAddrs(), len(d.Replicas()))
	}
	for _, a := range append(d.SentinelAddrs(), d.Master().Addr(), d.Replicas()[0].Addr()) {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Fatalf("address %q is not on 127.0.0.1", a)
		}
	}
	ctx := Ctx(t, waitTimeout+sentinelSettleTimeout)
	c := d.FailoverClient(t)
	if err := c.Set(ctx, "before", "1", 0).Err(); err != nil {
		t.Fatalf("SET before the failover: %v", err)
	}
	if got, err := d.Master().Client(t).Get(ctx, "before").Result(); err != nil || got != "1" {
		t.Fatalf("GET on the master = %q, %v; want the write of the failover client", got, err)
	}

	old := d.Master()
	master := d.Failover(t)
	if master == old || master != d.Replicas()[0] {
		t.Fatalf("Failover returned %s; want the replica %s promoted", master.Addr(), d.Replicas()[0].Addr())
	}
	if err := c.Set(ctx, "after", "2", 0).Err(); err != nil {
		t.Fatalf("SET through the same client after the failover: %v", err)
	}
	for key, want := range map[string]string{"before": "1", "after": "2"} {
		if got, err := c.Get(ctx, key).Result(); err != nil || got != want {
			t.Errorf("GET %s after the failover = %q, %v; want %q", key, got, err, want)
		}
	}
	if got, err := master.Client(t).Get(ctx, "after").Result(); err != nil || got != "2" {
		t.Errorf("GET on the new master = %q, %v; want the write made after the failover", got, err)
	}
	if err := old.Client(t).Set(ctx, "stale", "x", 0).Err(); err == nil || !strings.HasPrefix(err.Error(), "READONLY") {
		t.Errorf("SET on the old master = %v; want READONLY, as a replica of the new one", err)
	}
}
