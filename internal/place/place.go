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
	// it back to the end of that (Leave).
	mu sync.RWMutex

	waiting int // guarded by places.mu: goroutines counted in by Enter
}

// places are the places some goroutine is counted in; a place is
// forgotten when its count drops to zero.
var places = struct {
	mu sync.Mutex
	m  map[Key]*Place
}{m: map[Key]*Place{}}

// Enter counts the calling goroutine in the place k and returns it; the
// goroutine calls Exit when it is done.
func Enter(k Key) *Place {
	places.mu.Lock()
	defer places.mu.Unlock()
	p := places.m[k]
	if p == nil {
		p = &Place{key: k}
		places.m[k] = p
	}
	p.waiting++
	return p
}

// Exit counts out a goroutine that Enter counted in p.
func (p *Place) Exit() {
	places.mu.Lock()
	defer places.mu.Unlock()
	if p.waiting--; p.waiting == 0 {
		delete(places.m, p.key)
	}
}

// Attempt runs f, an attempt that may put the owner's data in Redis,
// never while a Leave of p runs.
func (p *Place) Attempt(f func()) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	f()
}

// Leave runs take, which takes the owner's data back, when no goroutine
// but the caller (counted in p) is counted in p, and returns its error;
// else it returns nil. No Attempt of p runs from the count to the end of
// take.
func (p *Place) Leave(take func() error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	places.mu.Lock()
	alone := p.waiting == 1
	places.mu.Unlock()
	if !alone {
		return nil
	}
	return take()
}
