package faultmatrix_test

import (
	"context"
	"sync"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// victim is owner 0's hold across the fault.
type victim struct {
	r    *run
	o    owner
	e    *entry
	lost chan struct{} // closed when one of its lost signals closes
	quit chan struct{} // closed by release
}

// holdVictim locks as owner 0 on lc and enters the checker; it returns
// once the victim holds the lock, and records when it is told it lost it.
func (r *run) holdVictim(t *testing.T, lc *lockkit.Client) *victim {
	t.Helper()
	o := r.k.owner(lc, r.name, 0)
	if err := o.Lock(redistest.Ctx(t, callBound)); err != nil {
		t.Fatalf("%s: the victim's Lock: %v", r.k.name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	v := &victim{r: r, o: o, e: r.chk.begin(ctx, o), lost: make(chan struct{}), quit: make(chan struct{})}
	var once sync.Once
	for _, ch := range o.lost() {
		r.wg.Go(func() {
			select {
			case <-ch:
				once.Do(func() {
					r.detected.Store(r.since())
					close(v.lost)
				})
			case <-v.quit:
			}
		})
	}
	return v
}

// awaitLost waits until the victim is told it lost the lock.
func (v *victim) awaitLost(t *testing.T) {
	t.Helper()
	redistest.Receive(t, v.lost, eventBound, v.r.k.name+": the victim's lost signal")
}

// release leaves the checker (writing if the victim still holds the lock)
// and unlocks.
func (v *victim) release() {
	close(v.quit)
	ctx, cancel := context.WithTimeout(context.Background(), callBound)
	defer cancel()
	v.e.finish(ctx)
	v.r.unlock(v.o)
}
