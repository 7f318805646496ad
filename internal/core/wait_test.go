package core

import (
	"context"
	"testing"
	"time"
)

func TestBackoff_bounds_double_from_floor_to_cap(t *testing.T) {
	b := Backoff{Floor: time.Millisecond, Cap: 128 * time.Millisecond}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 128, 128}
	for n, w := range want {
		if got := b.Bound(n); got != w*time.Millisecond {
			t.Fatalf("Bound(%d) = %v, want %v", n, got, w*time.Millisecond)
		}
	}
}

func TestBackoff_cap_not_a_power_of_two_times_floor(t *testing.T) {
	b := Backoff{Floor: 3 * time.Millisecond, Cap: 10 * time.Millisecond}
	want := []time.Duration{3, 6, 10, 10, 10}
	for n, w := range want {
		if got := b.Bound(n); got != w*time.Millisecond {
			t.Fatalf("Bound(%d) = %v, want %v", n, got, w*time.Millisecond)
		}
	}
}

func TestBackoff_multiplier_sets_the_growth(t *testing.T) {
	for _, tc := range []struct {
		m    float64
		want []time.Duration
	}{
		{3, []time.Duration{2, 6, 18, 54, 100, 100}},
		{1.5, []time.Duration{2, 3, 5, 7, 10, 15}}, // 2, 3, 4.5, 6.75, 10.1, 15.2 rounded
		{1, []time.Duration{2, 2, 2, 2, 2, 2}},
	} {
		b := Backoff{Floor: 2 * time.Millisecond, Cap: 100 * time.Millisecond, Multiplier: tc.m}
		for n, w := range tc.want {
			if got := b.Bound(n).Round(time.Millisecond); got != w*time.Millisecond {
				t.Fatalf("multiplier %v: Bound(%d) = %v, want %v", tc.m, n, got, w*time.Millisecond)
			}
		}
	}
}

// TestBackoff_bound_of_a_long_wait_is_computed_at_once: the bound after
// billions of attempts is found without stepping through them, with a
// multiplier of 1 (which never reaches the cap) or just above it.
func TestBackoff_bound_of_a_long_wait_is_computed_at_once(t *testing.T) {
	const n = 1 << 40
	for _, tc := range []struct {
		m    float64
		want time.Duration
	}{
		{1, 2 * time.Millisecond},
		{1 + 1e-12, 6 * time.Millisecond}, // 2 ms · e^1.0995
		{1 + 1e-9, 100 * time.Millisecond},
	} {
		b := Backoff{Floor: 2 * time.Millisecond, Cap: 100 * time.Millisecond, Multiplier: tc.m}
		if got := b.Bound(n).Round(time.Millisecond); got != tc.want {
			t.Fatalf("multiplier %v: Bound(2^40) = %v, want %v", tc.m, got, tc.want)
		}
	}
}

// TestBackoff_exact_sleeps_the_bound: without jitter a sleep is the bound
// itself; the jitter function is never asked.
func TestBackoff_exact_sleeps_the_bound(t *testing.T) {
	b := Backoff{Floor: time.Millisecond, Cap: 4 * time.Millisecond, Exact: true,
		Jitter: func(int64) int64 { t.Fatal("jitter drawn for an exact backoff"); return 0 }}
	turn := b.Turn()
	for range 3 {
		turn.Tried(false, -1)
		start := time.Now()
		if err := turn.Sleep(context.Background()); err != nil {
			t.Fatal(err)
		}
		if time.Since(start) < time.Millisecond {
			t.Fatal("an exact sleep returned before its bound")
		}
	}
}

func TestBackoff_huge_cap_does_not_overflow(t *testing.T) {
	const maxDur = time.Duration(1<<63 - 1)
	b := Backoff{Floor: time.Hour, Cap: maxDur}
	for n := range 100 {
		if d := b.Bound(n); d <= 0 {
			t.Fatalf("Bound(%d) = %v", n, d)
		}
	}
	if got := b.Bound(100); got != maxDur {
		t.Fatalf("Bound(100) = %v, want the cap", got)
	}
}

// TestBackoff_sleep_is_jittered_below_bound_and_cut_to_the_lease drives a
// backoff turn with a recording jitter: each sleep is drawn below the
// current bound, and a refused attempt's wait cuts it.
func TestBackoff_sleep_is_jittered_below_bound_and_cut_to_the_lease(t *testing.T) {
	var drawn []int64
	b := Backoff{Floor: time.Millisecond, Cap: 4 * time.Millisecond, Jitter: func(n int64) int64 {
		drawn = append(drawn, n)
		return 0
	}}
	turn := b.Turn()
	if !turn.Eager() || turn.Ready() {
		t.Fatal("a backoff turn attempts first and never right after joining")
	}
	for range 4 {
		turn.Tried(false, time.Hour)
		if err := turn.Sleep(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	want := []int64{1e6, 2e6, 4e6, 4e6}
	for i, w := range want {
		if drawn[i] != w {
			t.Fatalf("draw %d below %d, want below %d", i, drawn[i], w)
		}
	}
	// A wait of zero (the hold just vanished) cuts the sleep to 1 ms even
	// when the draw is the bound.
	b.Jitter = func(n int64) int64 { return n - 1 }
	b.Floor, b.Cap = time.Hour, time.Hour
	turn = b.Turn()
	turn.Tried(false, 0)
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := turn.Sleep(c); err != nil {
		t.Fatalf("Sleep cut to the lease = %v, want nil long before the hour", err)
	}
}
