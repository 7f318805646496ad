package main

import (
	"math"
	"testing"
)

func TestJain(t *testing.T) {
	for _, c := range []struct {
		x    []int
		want float64
	}{
		{[]int{5, 5, 5, 5}, 1},
		{[]int{8, 0, 0, 0}, 0.25},
		{[]int{2, 1}, 0.9},
		{[]int{0, 0}, 0},
	} {
		if got := jain(c.x); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("jain(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

func TestQuantile_nearest_rank(t *testing.T) {
	s := make([]float64, 100)
	for i := range s {
		s[i] = float64(i + 1)
	}
	if q := quantile(s, 0.5); q != 50 {
		t.Errorf("p50 = %v, want 50", q)
	}
	if q := quantile(s, 0.99); q != 99 {
		t.Errorf("p99 = %v, want 99", q)
	}
	if q := quantile(s[:1], 0.99); q != 1 {
		t.Errorf("p99 of one = %v, want 1", q)
	}
	if !math.IsNaN(quantile(nil, 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
}
