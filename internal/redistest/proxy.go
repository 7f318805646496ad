package redistest

import (
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP proxy on 127.0.0.1 in front of one server, through which
// a test makes the network slow or cuts it: [Proxy.SetDelay] holds every
// chunk of bytes, in each direction, for a random time in a range before
// passing it on (in order), and [Proxy.Cut] stops forwarding altogether,
// as a network partition does: connections stay open, new ones are
// accepted, and the bytes wait until [Proxy.Heal]. It is closed in
// t.Cleanup of the test that started it.
//
// A Proxy is safe for concurrent use.
type Proxy struct {
	upstream string
	ln       net.Listener
	gate     gate // shut by Cut, opened by Heal and close

	mu       sync.Mutex
	min, max time.Duration // delay range; zero: none
	conns    map[net.Conn]struct{}
	closed   bool

	wg sync.WaitGroup // every goroutine of the proxy
}

// StartProxy starts a Proxy in front of upstream, "HOST:PORT", and returns
// it forwarding without delay.
func StartProxy(t testing.TB, upstream string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: proxy: %v", err)
	}
	p := &Proxy{upstream: upstream, ln: ln, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// Addr returns the address clients dial instead of the server's.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetDelay holds every chunk for a time drawn uniformly from [min, max]
// before it is passed on, in both directions; chunks keep their order. A
// round trip then takes twice that. SetDelay(0, 0) removes the delay.
func (p *Proxy) SetDelay(min, max time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.min, p.max = min, max
}

// Cut stops forwarding: bytes read from either side wait in the proxy
// until Heal. Connections stay open and new ones are accepted.
func (p *Proxy) Cut() {
	p.gate.shut()
}

// Heal resumes forwarding after [Proxy.Cut]; the bytes held meanwhile go
// through first.
func (p *Proxy) Heal() {
	p.gate.open()
}

// accept serves connections until the listener closes.
func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		if !p.track(c, u) {
			return
		}
		p.wg.Go(func() { p.pipe(c, u) })
		p.wg.Go(func() { p.pipe(u, c) })
	}
}

// track records the connections of a pair, or closes them and reports
// false once the proxy is closed.
func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

// untrack closes the connections of a pair and forgets them.
func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		c.Close()
		delete(p.conns, c)
	}
}

// chunk is bytes read from one side, due to be written at a time.
type chunk struct {
	b   []byte
	due time.Time
}

// pipe copies from src to dst through a queue that applies the delay and
// the cut; the end of either side closes both.
func (p *Proxy) pipe(src, dst net.Conn) {
	queue := make(chan chunk, 1024)
	done := make(chan struct{})
	go func() { // writer: joined below through done
		defer close(done)
		for c := range queue {
			if !p.wait(c.due) {
				break
			}
			if _, err := dst.Write(c.b); err != nil {
				break
			}
		}
		p.untrack(src, dst)
		for range queue { // let the reader finish
		}
	}()
	var last time.Time
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			due := time.Now().Add(p.delay())
			if due.Before(last) {
				due = last
			}
			last = due
			queue <- chunk{b: append([]byte(nil), buf[:n]...), due: due}
		}
		if err != nil {
			break
		}
	}
	close(queue)
	<-done
}

// delay draws a delay from the current range.
func (p *Proxy) delay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.max <= p.min {
		return p.min
	}
	return p.min + rand.N(p.max-p.min+1)
}

// wait returns once a chunk due at due may be written: its time has come
// and the proxy is not cut. It reports false if the proxy closed first.
func (p *Proxy) wait(due time.Time) bool {
	for {
		p.mu.Lock()
		held, closed := p.gate.held(), p.closed
		p.mu.Unlock()
		if closed {
			return false
		}
		if held != nil {
			<-held // Heal, or close, which opens the gate too
			continue
		}
		if d := time.Until(due); d > 0 {
			time.Sleep(d) // the delay being injected
		}
		return true
	}
}

// close stops the proxy: the listener, every connection and every
// goroutine.
func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	p.gate.open()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	_ = p.ln.Close()
	p.wg.Wait()
}
