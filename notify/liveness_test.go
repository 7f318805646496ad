package notify_test

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// stallProxy forwards TCP connections on 127.0.0.1 to a server, and can
// make the connections open so far go silent, as a dead NAT entry or a
// black-holed route does: nothing passes either way and nothing is closed.
// Connections opened after the stall forward as usual.
type stallProxy struct {
	ln net.Listener
	wg sync.WaitGroup

	mu      sync.Mutex
	conns   []net.Conn
	stalled map[net.Conn]bool
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, stalled: map[net.Conn]bool{}}
	p.wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			p.wg.Go(func() { p.pipe(out, in) })
			p.wg.Go(func() { p.pipe(in, out) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

// pipe copies from src to dst, dropping what arrives once src is stalled.
func (p *stallProxy) pipe(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			dst.Close()
			return
		}
		p.mu.Lock()
		stalled := p.stalled[src]
		p.mu.Unlock()
		if stalled {
			continue
		}
		if _, err := dst.Write(buf[:n]); err != nil && err != io.EOF {
			src.Close()
			return
		}
	}
}

// stall silences every connection open now.
func (p *stallProxy) stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		p.stalled[c] = true
	}
}

func (p *stallProxy) addr() string { return p.ln.Addr().String() }

// TestNotifier_replaces_a_silently_dead_connection checks that a pub/sub
// connection that stops answering (its health PING gets no reply) is
// detected and replaced within a few health intervals, and every waiter is
// woken to re-check, instead of sleeping on it forever.
func TestNotifier_replaces_a_silently_dead_connection(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := newStallProxy(t, srv.Addr())
	c := redis.NewClient(&redis.Options{Addr: proxy.addr()})
	t.Cleanup(func() { c.Close() })
	ch, w, got, disconnects := healthCheckedSleeper(t, c)

	proxy.stall()
	redistest.Receive(t, disconnects, 5*time.Second, "the dead connection to be detected")
	if err := redistest.Receive(t, got, 5*time.Second, "the waiter to be woken to re-check"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
	// The new connection carries the channel again: a release reaches it.
	admin := srv.Client(t)
	redistest.Eventually(t, 5*time.Second, "a release to reach the waiter over the new connection", func() bool {
		publish(t, admin, ch, notify.WakeOne)
		return woken(w, 200*time.Millisecond)
	})
}

// TestSubscribe_returns_within_ctx_when_the_server_does_not_answer: the
// first Subscribe opens the pub/sub connection, and go-redis waits for a
// server that accepts but never answers up to its read timeout (a minute
// here); Subscribe still returns when its ctx ends.
func TestSubscribe_returns_within_ctx_when_the_server_does_not_answer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { _, _ = io.Copy(io.Discard, c) }) // reads, never answers
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	// A read timeout of a minute: a Subscribe that waited for it would
	// outlast the bound on the wait below.
	c := redis.NewClient(&redis.Options{Addr: ln.Addr().String(), MaxRetries: -1, ReadTimeout: time.Minute})
	t.Cleanup(func() { c.Close() })
	n := notify.New(c)
	t.Cleanup(func() { _ = n.Close() })
	defer func() { // hang up first, so that Close need not wait for the read
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()

	done := make(chan error, 1)
	go func() {
		_, err := n.Subscribe(redistest.Ctx(t, 200*time.Millisecond), redistest.Unique(t))
		done <- err
	}()
	if err := redistest.Receive(t, done, redistest.Hang, "Subscribe with a 200 ms ctx"); err == nil {
		t.Fatal("Subscribe to a server that never answers = nil error")
	}
}

// TestNotifier_wakes_waiters_while_the_new_connection_waits_on_a_stalled_server:
// a server that stops answering (redistest.Server.Stall) leaves the
// pub/sub connection silent, and the Notifier replaces it. Opening the new
// one waits for the server's answer, up to go-redis's read timeout (a
// minute on redistest.Patient's client). The waiters are woken to re-check
// and the break reported before that, not once the server answers again.
func TestNotifier_wakes_waiters_while_the_new_connection_waits_on_a_stalled_server(t *testing.T) {
	srv := redistest.StartServer(t)
	c := redistest.Patient(t, srv.Addr())
	_, _, got, disconnected := healthCheckedSleeper(t, c)

	srv.Stall(t, time.Minute)
	defer srv.Kill(t) // ends the stall, and the wait for the new connection with it
	redistest.Receive(t, disconnected, 5*time.Second, "the silent connection to be reported")
	if err := redistest.Receive(t, got, 5*time.Second, "the waiter to be woken to re-check"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
}

// TestNotifier_wakes_waiters_of_a_silent_connection_while_a_subscribe_is_held_up:
// the network is cut (a proxy that forwards nothing and closes nothing)
// while a waiter sleeps, and a first Subscribe to a shard channel comes
// meanwhile: it asks the server whether it has sharded pub/sub, which
// waits go-redis's read timeout (a minute on redistest.Patient's client)
// and holds the Notifier's subscriptions meanwhile. The silent connection
// is still reported, and its waiter woken, within two health intervals,
// not once go-redis gives up.
func TestNotifier_wakes_waiters_of_a_silent_connection_while_a_subscribe_is_held_up(t *testing.T) {
	srv := redistest.StartServer(t)
	proxy := redistest.StartProxy(t, srv.Addr())
	c := redistest.Patient(t, proxy.Addr())
	onDisconnect, disconnected := disconnects()
	n := notify.New(c, notify.HealthCheck(200*time.Millisecond), onDisconnect)
	t.Cleanup(func() { _ = n.Close() })
	ch := redistest.Unique(t)
	w := subscribe(t, n, ch)
	defer w.Leave(false)
	got := asleep(t, n, w, ch)
	t.Cleanup(proxy.Heal) // before Close, which waits for the subscribe

	proxy.Cut()
	subscribed := subscribeAsync(redistest.Ctx(t, time.Second), n, notify.ShardMark+redistest.Unique(t))
	redistest.Receive(t, disconnected, 5*time.Second, "the silent connection to be reported")
	if err := redistest.Receive(t, got, 5*time.Second, "the waiter to be woken to re-check"); err != nil {
		t.Fatalf("WaitTurn = %v", err)
	}
	_ = redistest.Receive(t, subscribed, 5*time.Second, "the Subscribe to return at its ctx")
}
