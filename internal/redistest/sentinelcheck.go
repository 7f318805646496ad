package redistest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"
)

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
