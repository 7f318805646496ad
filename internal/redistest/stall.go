package redistest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// stallStartTimeout bounds the wait for a server to begin a stall.
	stallStartTimeout = 10 * time.Second
	// stallSlack is how long past its end the connection of a stall waits
	// for the reply to DEBUG SLEEP.
	stallSlack = 10 * time.Second
)

// Stall makes the server stop answering for d, as a process paused by a
// long garbage collection or a swapped-out host would: connections stay
// open, nothing is lost, and every command waits. It sends DEBUG SLEEP on a
// connection of its own and returns once the server has read it, so that
// every command sent after Stall returns is served only when the stall is
// over. The stall ends by itself after d; the test's cleanup closes the
// connection without waiting for the end.
//
// Stall fails the test if the stall is over before it returns, so d should
// be a second or more. [Server.Kill] ends a stall at once, [Server.Stop]
// waits for it to end. Seeing the server read the command takes
// /proc/net/tcp, so Stall skips the test outside Linux.
func (s *Server) Stall(t testing.TB, d time.Duration) {
	t.Helper()
	if !canWatchSockets {
		t.Skip("redistest: Stall watches sockets through /proc/net/tcp, which only Linux has")
	}
	var conn atomic.Pointer[countingConn]
	c := redis.NewClient(&redis.Options{
		Addr: s.Addr(),
		Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			cc := &countingConn{Conn: nc}
			if !conn.CompareAndSwap(nil, cc) {
				nc.Close()
				return nil, errors.New("redistest: a stall has one connection")
			}
			return cc, nil
		},
		DialTimeout:   probeTimeout,
		DialerRetries: 1,
		PoolSize:      2,  // see adminClient
		MaxRetries:    -1, // a resent DEBUG SLEEP would stall the server twice
		ReadTimeout:   d + stallSlack,
	})
	// The first command opens the connection and completes the handshake,
	// so that the next bytes written are DEBUG SLEEP.
	if err := c.Ping(Ctx(t, probeTimeout)).Err(); err != nil {
		_ = c.Close()
		t.Fatalf("redistest: Stall of redis-server %s: %v", s.Addr(), err)
	}
	cc := conn.Load()
	before := cc.written.Load()
	var (
		finished = make(chan struct{})
		stallErr error // written before finished is closed
	)
	go func() {
		defer close(finished)
		secs := strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
		stallErr = c.Do(context.Background(), "debug", "sleep", secs).Err()
	}()
	t.Cleanup(func() {
		_ = c.Close() // ends the wait for the reply at once
		<-finished
	})

	err := s.waitRead(cc, before, finished)
	if err == nil && Closed(finished) {
		err = errStallOver
	}
	if errors.Is(err, errStallOver) {
		if stallErr != nil {
			err = stallErr
		} else {
			err = fmt.Errorf("the stall of %v was over before Stall returned; stall for longer", d)
		}
	}
	if err != nil {
		t.Fatalf("redistest: Stall of redis-server %s: %v", s.Addr(), err)
	}
}

// waitRead waits until the server has read what cc writes after its first
// before bytes, and returns errStallOver if over is closed first. Redis
// runs a command as soon as it has read it. It has read it once the bytes
// were written, acknowledged by its kernel (the send queue of cc's end is
// empty) and then, looking again, taken off the receive queue of its end.
func (s *Server) waitRead(cc *countingConn, before int64, over <-chan struct{}) error {
	local := cc.LocalAddr().(*net.TCPAddr).Port
	err := pollUntil(over, stallStartTimeout, "the write", func() (bool, error) {
		return cc.written.Load() > before, nil
	})
	if err == nil {
		err = pollUntil(over, stallStartTimeout, "its delivery", func() (bool, error) {
			tx, _, err := tcpQueues(local, s.port)
			return tx == 0, err
		})
	}
	if err == nil {
		err = pollUntil(over, stallStartTimeout, "the server reading it", func() (bool, error) {
			_, rx, err := tcpQueues(s.port, local)
			return rx == 0, err
		})
	}
	return err
}

// errStallOver is what pollUntil returns when the stall ended first.
var errStallOver = errors.New("stall over")

// pollUntil calls cond every millisecond until it reports true or fails,
// and returns errStallOver if over is closed first, or an error naming
// what it waited for after timeout.
func pollUntil(over <-chan struct{}, timeout time.Duration, what string, cond func() (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		if ok, err := cond(); ok || err != nil {
			return err
		}
		select {
		case <-over:
			return errStallOver
		case <-deadline.C:
			return fmt.Errorf("no sign of %s within %v", what, timeout)
		case <-tick.C:
		}
	}
}

// countingConn is a net.Conn that counts the bytes written to it.
type countingConn struct {
	net.Conn
	written atomic.Int64
}

// Write writes p and counts what was written.
func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}
