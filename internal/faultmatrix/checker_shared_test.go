package faultmatrix_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// fixedHold is a hold with a given token and lost signal.
type fixedHold struct {
	token int64
	lost  chan struct{}
}

func (h fixedHold) Lost() <-chan struct{} { return h.lost }
func (h fixedHold) Token() int64          { return h.token }

// TestChecker_semaphore_lets_two_holders_in_and_detects_a_third enters
// the checker of a semaphore of two permits as holders with increasing
// tokens: two inside at once are no overlap, a third not told of a loss
// is one, and the fenced store then refuses the oldest; a holder told of
// its loss leaves room for another.
func TestChecker_semaphore_lets_two_holders_in_and_detects_a_third(t *testing.T) {
	k, ok := kindNamed("semaphore")
	if !ok || k.permits != 2 {
		t.Fatalf("the semaphore kind: %v, %d permits; want 2", ok, k.permits)
	}
	store := redistest.StartServer(t).Client(t)
	cases := []struct {
		name              string
		loseFirst         bool
		overlaps, refused int
	}{
		{name: "a third holder", overlaps: 1, refused: 1},
		{name: "a third after the first was told of its loss", loseFirst: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := redistest.Ctx(t, callBound)
			c := newChecker(store, k, redistest.Unique(t))
			holds := make([]fixedHold, 3)
			for i := range holds {
				holds[i] = fixedHold{token: int64(i + 1), lost: make(chan struct{})}
			}
			first := c.begin(ctx, owner{parts: []hold{holds[0]}})
			second := c.begin(ctx, owner{parts: []hold{holds[1]}})
			if tc.loseFirst {
				close(holds[0].lost)
			}
			third := c.begin(ctx, owner{parts: []hold{holds[2]}})
			for _, e := range []*entry{first, second, third} {
				e.finish(ctx)
			}
			v, err := c.verdict(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v.overlaps != tc.overlaps || v.refused != tc.refused || v.lostPlain != 0 || v.lostFenced != 0 {
				t.Errorf("verdict = %+v; want %d overlaps, %d refused, nothing lost", v, tc.overlaps, tc.refused)
			}
		})
	}
}
