package redistest

import (
	"context"
	"time"
)

// Timed is what a call made by CallAtOnce returned, and how long it took.
type Timed struct {
	Err  error
	Took time.Duration
}

// CallAtOnce makes n calls at once, call(ctx, i) for i from 0 to n-1, each
// in a goroutine of its own with a ctx that ends after d, and returns the
// channels their outcomes arrive on, the i-th call's on the i-th.
func CallAtOnce(n int, d time.Duration, call func(ctx context.Context, i int) error) []<-chan Timed {
	got := make([]<-chan Timed, n)
	for i := range n {
		ch := make(chan Timed, 1)
		got[i] = ch
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			start := time.Now()
			err := call(ctx, i)
			ch <- Timed{err, time.Since(start)}
		}()
	}
	return got
}
