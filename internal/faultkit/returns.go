package faultkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// Return is the return of a waiter's Lock: the waiter's index among those
// given to Returns, and the Lock's error.
type Return struct {
	I   int
	Err error
}

// Returns watches the Locks of ws, and returns the channel on which each
// sends its Return once it returns. The channel has room for all of them,
// so that its length tells how many returned and were not received yet.
func Returns(ws []Waiter) chan Return {
	got := make(chan Return, len(ws))
	for i, w := range ws {
		go func() { got <- Return{i, <-w.Done} }()
	}
	return got
}

// NextTaken receives the next Return of got, the channel of Returns for n
// waiters, within d, and fails the test unless that Lock returned nil: the
// waiter took the lock.
func NextTaken(t *testing.T, got <-chan Return, n int, d time.Duration) Return {
	t.Helper()
	r := redistest.Receive(t, got, d, fmt.Sprintf("a waiter of %d to take the lock", n))
	if r.Err != nil {
		t.Fatalf("waiter %d: Lock = %v", r.I, r.Err)
	}
	return r
}
