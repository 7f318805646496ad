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
	name := func(i int) string { return fmt.Sprintf("%d %s", i, fs[i%len(fs)].name) }
	e.rounds(t, n, name, func(t *testing.T, i int, obs *observer) {
		if f := fs[i%len(fs)]; e.K.Owner == nil {
			e.latchRound(t, f, i)
		} else {
			e.lockRound(t, f, obs)
		}
	})
}

// rounds runs n rounds of e, each a subtest named name(i) that runs round
// and then checks that the process and the servers came back to the state
// of the first round (see env.settle); it stops at the first round that
// fails, and checks the heap at the end. round gets the observer of e's
// election, or nil for the other kinds.
func (e *env) rounds(t *testing.T, n int, name func(i int) string, round func(t *testing.T, i int, obs *observer)) {
	t.Helper()
	var obs *observer
	if observed(e.K) {
		obs = e.observe(t)
	}
	var base *steady
	for i := range n {
		ok := t.Run(name(i), func(t *testing.T) {
			round(t, i, obs)
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
