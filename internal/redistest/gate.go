package redistest

import "sync"

// gate holds goroutines up while it is shut, as [Silence] and [Proxy] do
// with what passes through them. The zero gate is open. A gate must not be
// copied after first use. It is safe for concurrent use.
type gate struct {
	mu sync.Mutex
	ch chan struct{} // closed by open; nil while open
}

// shut makes the goroutines that wait from now on hold up until open.
// Shutting a shut gate does nothing.
func (g *gate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
}

// open lets every goroutine held up go on, and the later ones pass.
// Opening an open gate does nothing.
func (g *gate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ch != nil {
		close(g.ch)
		g.ch = nil
	}
}

// held returns the channel a goroutine waits on until the gate opens, or
// nil while it is open.
func (g *gate) held() <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.ch
}
