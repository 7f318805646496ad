package semaphore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// TestClose_racing_calls_on_a_shared_Semaphore_leaves_no_permit_held:
// goroutines share a Semaphore of 3 permits and the Permits they take (any
// goroutine releases any of them, as the docs allow), acquiring, trying,
// releasing and querying while the Client closes at a seeded random point,
// on a fast and a slow network. No call races, panics or hangs, each
// returns what the docs allow (ErrClosed once the Client is closed), no
// goroutine is left, every hold is reported lost once Close has returned,
// and once the Permits still held are released nothing of the semaphore,
// its queue included, is left in Redis.
func TestClose_racing_calls_on_a_shared_Semaphore_leaves_no_permit_held(t *testing.T) {
	redistest.RaceOnNetworks(t, redistest.StartServer(t), func(t *testing.T, lc *lockkit.Client, name string) redistest.Round {
		s := &permitRace{s: semaphore.New(lc, name, 3), done: lc.Done()}
		return redistest.Round{
			Racer: func(_ int, rng *rand.Rand) redistest.Racer { return &permitRacer{permitRace: s, rng: rng} },
			Check: func(t *testing.T) { redistest.AssertCleanWithin(t, lc.Redis(), name, time.Second) },
		}
	})
}

// permitRace is what the goroutines of a Semaphore's race share: the
// Semaphore, and the Permits taken and not released yet.
type permitRace struct {
	s    *semaphore.Semaphore
	done <-chan struct{}

	mu   sync.Mutex
	held []*semaphore.Permits
}

// take removes a Permits of those held, picked by rng, and returns it; nil
// when none is held.
func (pr *permitRace) take(rng *rand.Rand) *semaphore.Permits {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if len(pr.held) == 0 {
		return nil
	}
	i := rng.IntN(len(pr.held))
	p := pr.held[i]
	pr.held = append(pr.held[:i], pr.held[i+1:]...)
	return p
}

func (pr *permitRace) put(p *semaphore.Permits) {
	pr.mu.Lock()
	pr.held = append(pr.held, p)
	pr.mu.Unlock()
}

// permitRacer is one goroutine of a Semaphore's race.
type permitRacer struct {
	*permitRace
	rng *rand.Rand
}

func (r *permitRacer) Step(ctx context.Context, closed bool) error {
	n := 1 + r.rng.IntN(2)
	switch p := r.rng.IntN(100); {
	case p < 35:
		if h := r.take(r.rng); h != nil {
			return release(ctx, h)
		}
	case p < 45:
		_, err := r.s.Available(ctx)
		if q, ok := r.peek(); ok {
			redistest.Closed(q.Lost())
			q.Token()
		}
		return redistest.StepOutcome("Available", err, closed)
	case p < 65:
		h, err := r.s.TryAcquire(ctx, n)
		return r.acquired("TryAcquire", h, err, closed)
	}
	ctx, cancel := redistest.GiveUp(ctx, r.rng)
	defer cancel()
	h, err := r.s.Acquire(ctx, n)
	return r.acquired("Acquire", h, err, closed)
}

// peek returns a Permits held, if any, leaving it held.
func (pr *permitRace) peek() (*semaphore.Permits, bool) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if len(pr.held) == 0 {
		return nil, false
	}
	return pr.held[0], true
}

// acquired keeps h, which an acquire (op) returned with err, and checks
// the outcome.
func (r *permitRacer) acquired(op string, h *semaphore.Permits, err error, closed bool) error {
	if h != nil {
		r.put(h)
	}
	if closed && h != nil {
		return fmt.Errorf("%s after Close returned a hold", op)
	}
	return redistest.StepOutcome(op, err, closed, lockkit.ErrNotObtained)
}

// release releases h and checks the outcome.
func release(ctx context.Context, h *semaphore.Permits) error {
	return redistest.Outcome("Release", h.Release(ctx), lockkit.ErrNotHeld, lockkit.ErrLost, lockkit.ErrClosed)
}

// Finish checks that every hold still held was reported lost, Close
// having returned, and releases them all.
func (r *permitRacer) Finish(ctx context.Context) error {
	var errs []error
	for h := r.take(r.rng); h != nil; h = r.take(r.rng) {
		if !redistest.Closed(h.Lost()) {
			errs = append(errs, errors.New("a hold's lost signal still open once Close returned"))
		}
		errs = append(errs, release(ctx, h))
	}
	return errors.Join(errs...)
}
