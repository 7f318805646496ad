package main

import (
	"testing"

	"github.com/lockkit/lockkit/examples/internal/exampletest"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestFairqueue_serves_every_worker_within_one_round runs the program
// with a hold long enough for a worker to ask again before the next turn
// ends, as its doc requires: it must report that between two turns of a
// worker no other worker had two.
func TestFairqueue_serves_every_worker_within_one_round(t *testing.T) {
	exampletest.Run(t, func(t *testing.T, p *redistest.Child, _ *redistest.Server) {
		p.WaitLine(t, "workers in the order they held the lock:", redistest.Hang)
		p.WaitLine(t, "between two turns of a worker every other worker had one at most", redistest.Hang)
	}, "-hold", "200ms")
}

// TestOneRound_finds_a_worker_served_twice_between_two_turns checks the
// program's check itself, so that its report means something.
func TestOneRound_finds_a_worker_served_twice_between_two_turns(t *testing.T) {
	for _, tc := range []struct {
		turns []int
		fair  bool
	}{
		{[]int{0, 1, 2, 0, 1, 2}, true},
		{[]int{0, 1, 0, 1}, true},
		{[]int{0, 0, 0}, true},
		{[]int{0, 1, 1, 0}, false},
		{[]int{0, 1, 2, 0, 2, 1, 2, 0}, false},
	} {
		if err := oneRound(tc.turns); (err == nil) != tc.fair {
			t.Errorf("oneRound(%v) = %v, want fair %v", tc.turns, err, tc.fair)
		}
	}
}
