package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestConnect_sentinel_finds_the_master(t *testing.T) {
	d := redistest.StartSentinel(t, 1, 3)
	c, prefix := prefixed(t, d.FailoverClient(t))
	m := holdReentrant(t, c)
	addrs := d.SentinelAddrs()

	for _, tc := range []struct {
		name string
		conn []string
	}{
		{"one sentinel", []string{"--sentinel-master", d.MasterName(), "--sentinel", addrs[0]}},
		{"repeated and comma-separated", []string{"--sentinel-master", d.MasterName(),
			"--sentinel", addrs[0] + "," + addrs[1], "--sentinel", addrs[2]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := cli{conn: tc.conn}
			cl.wantShowsHeld(t, prefix, m)
			e := cl.wantListsAlone(t, prefix, m)
			if got, want := holderLines(e.Holders), []string{"owner exclusive 2 " + itoa(m.Token())}; !slices.Equal(got, want) {
				t.Errorf("ls: holders %q, want %q", got, want)
			}
		})
	}
}

func TestConnect_sentinel_follows_a_failover(t *testing.T) {
	d := redistest.StartSentinel(t, 1, 3)
	rc := d.FailoverClient(t)
	c, prefix := prefixed(t, rc)
	cl := cli{conn: []string{"--sentinel-master", d.MasterName(), "--sentinel", strings.Join(d.SentinelAddrs(), ",")}}

	master := d.Failover(t)
	d.Master().Kill(t) // the old master: only the sentinels now lead to the lock
	m := holdReentrant(t, c)
	if n, err := master.Client(t).Exists(redistest.Ctx(t, 5*time.Second), keys(prefix, m.Name()).Base).Result(); err != nil || n != 1 {
		t.Fatalf("EXISTS on the new master %s = %d, %v; want the lock there", master.Addr(), n, err)
	}
	cl.wantShowsHeld(t, prefix, m)
}
