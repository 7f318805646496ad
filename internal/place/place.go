// Package place counts the goroutines that wait for a lock as one owner:
// every goroutine in the wait of every lock value of one Client with that
// owner id (values sharing an id, lockkit.WithOwner, are one owner). What
// the owner keeps in Redis while it waits (a fair lock's queue entry, a
// writer's intent) is then taken back only by the last of them to give
// up, and never while an attempt of another is on its way.
package place

import (
	"sync"

	"github.com/lockkit/lockkit"
)

// Key names the place of an owner: the Client, the lock (its hash key) and
// the owner id.
type Key struct {
	Client *lockkit.Client
	Lock   string
	Owner  string
}

// Place is the place of one owner, shared by the goroutines counted in it.
type Place struct {
	key Key

	// mu is held for reading by each attempt that may put the owner's
	// data in Redis (Attempt), and for writing from the decision to take
	// it back to the end of that (Leave, Idle).
	mu sync.RWMutex

	// Guarded by the lock of the Client's Locals, where the places in use
	// are kept: the goroutines counted in by Enter, and the users of the
	// place that are not counted (Idle). The place is forgotten when both
	// are zero.
	waiting, pins int
}

// get returns the place k, with its count of waiting goroutines and its
// pins raised by the given amounts.
func get(k Key, waiting, pins int) *Place {
	var p *Place
	k.Client.Locals(func(m map[any]any) {
		p, _ = m[k].(*Place)
		if p == nil {
			p = &Place{key: k}
			m[k] = p
		}
		p.waiting += waiting
		p.pins += pins
	})
	return p
}

// put lowers the count of waiting goroutines and the pins of p by the
// given amounts, forgets p when nobody uses it, and reports whether no
// goroutine is counted in p.
func (p *Place) put(waiting, pins int) (idle bool) {
	p.key.Client.Locals(func(m map[any]any) {
		p.waiting -= waiting
		p.pins -= pins
		if p.waiting == 0 && p.pins == 0 {
			delete(m, p.key)
		}
		idle = p.waiting == 0
	})
	return idle
}

// Enter counts the calling goroutine in the place k and returns it. The
// goroutine ends with Exit, or with Leave when it gives up.
func Enter(k Key) *Place { return get(k, 1, 0) }

// Exit counts out a goroutine that Enter counted in p and that took the
// lock: the owner's data in Redis is the lock's business from then on.
func (p *Place) Exit() { p.put(1, 0) }

// Attempt runs f, an attempt that may put the owner's data in Redis,
// never while a Leave or Idle of p runs.
func (p *Place) Attempt(f func()) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	f()
}

// Leave counts out a goroutine that Enter counted in p and that gave up.
// When it was the last one counted, it runs take, which takes the owner's
// data back, and returns its error; else it returns nil at once, without
// waiting for the attempts of the others. No Attempt of p runs from the
// decision to take back to the end of take.
func (p *Place) Leave(take func() error) error {
	// The caller's count turns into a pin until take is done, so that p
	// stays known and a goroutine entering meanwhile attempts after take.
	idle := p.put(1, -1)
	defer p.put(0, 1)
	if !idle {
		return nil
	}
	// A goroutine may have entered since: Idle takes back only if not.
	return p.idle(take)
}

// Idle runs take when no goroutine is counted in the place k, and returns
// its error; else it returns nil. No Attempt of the place runs from the
// check to the end of take. It is for the clean-up that follows an
// attempt whose caller had given up already.
func Idle(k Key, take func() error) error {
	p := get(k, 0, 1)
	defer p.put(0, 1)
	return p.idle(take)
}

// idle is Idle for p, which the caller pins.
func (p *Place) idle(take func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var idle bool
	p.key.Client.Locals(func(map[any]any) { idle = p.waiting == 0 })
	if !idle {
		return nil
	}
	return take()
}
