package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
)

const (
	// readyTimeout bounds the wait for a freshly started redis-server to
	// answer.
	readyTimeout = 10 * time.Second
	// probeTimeout bounds each command the harness sends for itself.
	probeTimeout = time.Second
)

// waitReady polls addr until the server answers and reports p's pid as its
// own, p exits, or timeout passes.
func waitReady(addr string, p *process, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if p.exited() {
			return fmt.Errorf("exited before answering: %s", p.status())
		}
		err := listening(addr)
		if err == nil {
			err = probe(addr, p.pid())
		}
		if err == nil || errors.Is(err, errPortInUse) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %v: %w", timeout, err)
		}
		select {
		case <-p.done:
		case <-tick.C:
		}
	}
}

// listening reports whether addr accepts TCP connections. waitReady asks
// before it probes, because go-redis logs every dial that fails.
func listening(addr string) error {
	conn, err := net.DialTimeout("tcp", addr, probeTimeout)
	if err != nil {
		return err
	}
	return conn.Close()
}

// probe checks that the server at addr answers PING and that it is the
// process with the given pid rather than some other process that got the
// port first.
func probe(addr string, pid int) error {
	c := adminClient(addr)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return err
	}
	if got, _ := infoField(info, "process_id"); got != strconv.Itoa(pid) {
		return fmt.Errorf("%w: %s is served by pid %s", errPortInUse, addr, got)
	}
	return nil
}
