package soak_test

import (
	"fmt"
	"testing"
)

// rounds is how many faults each kind's soak goes through: each of
// faults() twice.
const rounds = 12

// TestRepeated_faults_leave_every_kind_as_after_the_first_round runs each
// kind through rounds rounds on servers of its own, each across one fault
// (see faults), and checks after each that the holder's hold was kept or
// reported lost as documented, that the waiters took the lock, and that
// the process and the servers came back to the state of the first round
// (see env.settle); at the end, that the heap did not grow past a bound.
func TestRepeated_faults_leave_every_kind_as_after_the_first_round(t *testing.T) {
	for _, k := range kinds() {
		t.Run(k.Name, func(t *testing.T) { soak(t, newEnv(t, k), faults(), rounds) })
	}
}

// soak runs n rounds of e, across fs in turn, checking the state after
// each (see env.settle) and the heap at the end.
func soak(t *testing.T, e *env, fs []fault, n int) {
	t.Helper()
	var obs *observer
	if observed(e.K) {
		obs = e.observe(t)
	}
	var base *steady
	for i := range n {
		f := fs[i%len(fs)]
		ok := t.Run(fmt.Sprintf("%d %s", i, f.name), func(t *testing.T) {
			if e.K.Owner == nil {
				e.latchRound(t, f, i)
			} else {
				e.lockRound(t, f, obs)
			}
			e.settle(t, base)
			if base == nil {
				base = e.measure()
			}
		})
		if !ok {
			return
		}
	}
	if obs != nil {
		obs.stop(t)
	}
	e.checkHeap(t, base)
}
