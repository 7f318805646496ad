package fair

import (
	"sync"

	"github.com/lockkit/lockkit"
)

// place is an owner's place in a fair lock's queue as one Client sees it.
// Every Mutex of the Client with that owner id (lockkit.WithOwner) shares
// it, so that the entry in Redis leaves the queue only when the last
// goroutine waiting as the owner, in any of these Mutexes, gives up.
type place struct {
	// mu is held for reading by each attempt of a waiting Lock, which may
	// put the owner's entry in the queue, and for writing from the
	// decision to take the entry out to the end of that, so that no
	// attempt runs in between and then finds its entry gone.
	mu sync.RWMutex

	waiting int // guarded by places.mu: goroutines counted in by enter
}

// placeKey names a place: the Client, the lock's hash and the owner id.
type placeKey struct {
	c     *lockkit.Client
	lock  string
	owner string
}

// places are the places some goroutine is counted in; a place is
// forgotten when its count drops to zero.
var places = struct {
	mu sync.Mutex
	m  map[placeKey]*place
}{m: map[placeKey]*place{}}

// enter counts a goroutine in the place k, and returns the place.
func enter(k placeKey) *place {
	places.mu.Lock()
	defer places.mu.Unlock()
	p := places.m[k]
	if p == nil {
		p = &place{}
		places.m[k] = p
	}
	p.waiting++
	return p
}

// exit counts out a goroutine that enter counted in the place k.
func exit(k placeKey, p *place) {
	places.mu.Lock()
	defer places.mu.Unlock()
	if p.waiting--; p.waiting == 0 {
		delete(places.m, k)
	}
}

// alone reports whether the caller, counted in p, is the only goroutine
// counted there.
func (p *place) alone() bool {
	places.mu.Lock()
	defer places.mu.Unlock()
	return p.waiting == 1
}
