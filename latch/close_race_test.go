package latch_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// raceCount is the count of the latch the goroutines of a race share:
// some rounds open it before the Client closes, others do not.
const raceCount = 20

// TestClose_racing_calls_on_a_shared_Latch_counts_each_count_down_once:
// goroutines share a Latch, counting it down, reading its count and
// awaiting it, while the Client closes at a seeded random point, on a fast
// and a slow network. No call races, panics or hangs, each returns what the
// docs allow (ErrClosed once the Client is closed), no goroutine is left,
// and the count left in Redis is the count less the count-downs that
// returned nil, less at most those whose outcome was not known (they failed
// with ErrClosed): 0 if an Await returned nil.
func TestClose_racing_calls_on_a_shared_Latch_counts_each_count_down_once(t *testing.T) {
	redistest.RaceOnNetworks(t, redistest.StartServer(t), func(t *testing.T, lc *lockkit.Client, name string) redistest.Round {
		lr := &latchRace{l: latch.New(lc, name, raceCount)}
		return redistest.Round{
			Racer: func(_ int, rng *rand.Rand) redistest.Racer { return &latchRacer{latchRace: lr, rng: rng} },
			Check: func(t *testing.T) {
				lc := redistest.Lockkit(t, lc.Redis())
				left, err := latch.New(lc, name, raceCount).Count(redistest.Ctx(t, redistest.Hang))
				if err != nil {
					t.Fatal(err)
				}
				_ = lc.Close()
				counted, unknown := int(lr.counted.Load()), int(lr.unknown.Load())
				most, least := max(raceCount-counted, 0), max(raceCount-counted-unknown, 0)
				if left < least || left > most || lr.opened.Load() && left != 0 {
					t.Errorf("count left = %d after %d count-downs counted and %d not known (an Await opened: %v); want %d to %d",
						left, counted, unknown, lr.opened.Load(), least, most)
				}
			},
		}
	})
}

// latchRace is what the goroutines of a Latch's race share.
type latchRace struct {
	l       *latch.Latch
	counted atomic.Int64 // count-downs that returned nil
	unknown atomic.Int64 // count-downs that failed: they may have counted
	opened  atomic.Bool  // an Await returned nil
}

// latchRacer is one goroutine of a Latch's race.
type latchRacer struct {
	*latchRace
	rng *rand.Rand
}

func (lr *latchRacer) Step(ctx context.Context, closed bool) error {
	switch p := lr.rng.IntN(100); {
	case p < 40:
		_, err := lr.l.CountDown(ctx)
		if err == nil {
			lr.counted.Add(1)
		} else {
			lr.unknown.Add(1)
		}
		return redistest.StepOutcome("CountDown", err, closed)
	case p < 55:
		n, err := lr.l.Count(ctx)
		if err == nil && (n < 0 || n > raceCount) {
			return fmt.Errorf("the Count = %d, want 0 to %d", n, raceCount)
		}
		return redistest.StepOutcome("Count", err, closed)
	}
	ctx, cancel := redistest.GiveUp(ctx, lr.rng)
	defer cancel()
	err := lr.l.Await(ctx)
	if err == nil {
		lr.opened.Store(true)
		if closed {
			return errors.New("an Await after Close = nil, want ErrClosed")
		}
	}
	return redistest.StepOutcome("Await", err, closed, lockkit.ErrNotObtained)
}

// Finish has nothing to give back: a latch holds nothing.
func (lr *latchRacer) Finish(context.Context) error { return nil }
