package internal

import (
	"testing"
	"time"
)

func TestBackoff_bounds_double_from_floor_to_cap(t *testing.T) {
	b := NewBackoff(time.Millisecond, 128*time.Millisecond)
	var bounds []time.Duration
	b.Jitter = func(n int64) int64 {
		bounds = append(bounds, time.Duration(n))
		return n - 1 // the largest value allowed
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 128, 128}
	for i, w := range want {
		got := b.Next()
		if bounds[i] != w*time.Millisecond {
			t.Fatalf("sleep %d: drawn below %v, want below %v", i, bounds[i], w*time.Millisecond)
		}
		if got != w*time.Millisecond-1 {
			t.Fatalf("sleep %d = %v, want %v", i, got, w*time.Millisecond-1)
		}
	}
}

func TestBackoff_cap_not_a_power_of_two_times_floor(t *testing.T) {
	b := NewBackoff(3*time.Millisecond, 10*time.Millisecond)
	var bounds []time.Duration
	b.Jitter = func(n int64) int64 { bounds = append(bounds, time.Duration(n)); return 0 }
	for range 5 {
		if d := b.Next(); d != 0 {
			t.Fatalf("Next() = %v with a zero draw", d)
		}
	}
	want := []time.Duration{3, 6, 10, 10, 10}
	for i, w := range want {
		if bounds[i] != w*time.Millisecond {
			t.Fatalf("bound %d = %v, want %v", i, bounds[i], w*time.Millisecond)
		}
	}
}

func TestBackoff_huge_cap_does_not_overflow(t *testing.T) {
	const maxDur = time.Duration(1<<63 - 1)
	b := NewBackoff(time.Hour, maxDur)
	for range 100 {
		if d := b.Next(); d < 0 {
			t.Fatalf("Next() = %v", d)
		}
	}
	if got := b.Bound(); got != maxDur {
		t.Fatalf("bound after 100 failures = %v, want the cap", got)
	}
}

func TestBackoff_full_jitter_stays_below_bound(t *testing.T) {
	b := NewBackoff(time.Millisecond, 8*time.Millisecond)
	for i := range 1000 {
		bound := b.Bound()
		if d := b.Next(); d < 0 || d >= bound {
			t.Fatalf("sleep %d = %v, outside [0, %v)", i, d, bound)
		}
	}
}
