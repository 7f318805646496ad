package internal

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the wait state of one retry loop: after the n-th failed try
// (n = 0, 1, …) it sleeps for a duration drawn uniformly from
// [0, min(cap, floor·2ⁿ)) ("full jitter"), so callers that collide spread
// out instead of colliding again. Every loop makes its own, so nothing is
// shared between calls or goroutines.
type Backoff struct {
	floor, cap time.Duration
	n          int // failed tries so far

	// Jitter returns a random int64 in [0, n): rand.Int64N unless a test
	// replaces it.
	Jitter func(n int64) int64
}

// NewBackoff returns a Backoff from floor to cap; 0 < floor <= cap.
func NewBackoff(floor, cap time.Duration) *Backoff {
	return &Backoff{floor: floor, cap: cap, Jitter: rand.Int64N}
}

// Bound returns min(cap, floor·2ⁿ) for the current n.
func (b *Backoff) Bound() time.Duration {
	d := b.floor
	for i := 0; i < b.n && d < b.cap; i++ {
		if d > b.cap/2 {
			return b.cap
		}
		d *= 2
	}
	return d
}

// Next records a failed try and returns the sleep before the next one.
func (b *Backoff) Next() time.Duration {
	d := time.Duration(b.Jitter(int64(b.Bound())))
	b.n++
	return d
}

// Sleep waits for Next, cut to limit when limit >= 0, or until ctx ends,
// and then returns ctx.Err().
func (b *Backoff) Sleep(ctx context.Context, limit time.Duration) error {
	d := b.Next()
	if limit >= 0 {
		d = min(d, limit)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
