package redistest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
)

// envSeed names the environment variable that replays a [CloseRace] with
// the seed a failed run logged.
const envSeed = "LOCKKIT_RACE_SEED"

// Racer makes the calls of one goroutine of a [CloseRace].
type Racer interface {
	// Step makes one call, chosen with the goroutine's own random
	// source, and returns an error when its outcome is not one the docs
	// allow. closed reports whether the Client was closed before the
	// call began: then only what the docs allow after Close is.
	Step(ctx context.Context, closed bool) error
	// Finish gives back what the goroutine still holds, once every
	// goroutine has stopped and Close has returned, and returns an error
	// for an outcome the docs do not allow.
	Finish(ctx context.Context) error
}

// CloseRace is a stress run of lock values shared between goroutines
// while their Client closes, in rounds. In each round, Workers goroutines
// each make calls (steps of their [Racer]) until a step that began after
// the close returned, and Close is called, from two goroutines at once,
// once the goroutines have made a number of steps in all drawn from a
// seed. The seed is logged, and taken from $LOCKKIT_RACE_SEED when set, so
// that a failed run can be replayed (the goroutines' interleaving is the
// scheduler's, though).
//
// [CloseRace.Run] fails the test when a step reports an outcome the docs
// do not allow or returns later than a second past its ctx's deadline,
// when the goroutines or Close do not return within 10 s (a deadlock: the
// goroutines' stacks are logged), when giving back what the goroutines
// hold fails, when a round's Check fails, or when a goroutine started
// during a round outlives it. It stops at the first round that fails.
type CloseRace struct {
	// Rounds is the number of rounds; 10 when 0.
	Rounds int
	// Workers is the number of goroutines; 8 when 0.
	Workers int
	// MaxSteps bounds the steps made before Close; 10 per goroutine
	// when 0.
	MaxSteps int
	// StepTimeout bounds the ctx of each step; 2 s when 0.
	StepTimeout time.Duration
	// Round makes the Clients and lock values of a round; it should
	// start nothing that outlives the round but what t's cleanups stop.
	Round func(t *testing.T) Round
}

// Round is one round of a [CloseRace].
type Round struct {
	// Close closes the Client (or Clients) the lock values are made from.
	Close func()
	// Done is closed once Close was called: a step that begins later is
	// told so.
	Done <-chan struct{}
	// Racer makes the Racer of goroutine i, with its random source.
	Racer func(i int, rng *rand.Rand) Racer
	// Check, when set, checks what the round left in Redis once every
	// goroutine gave back what it held.
	Check func(t *testing.T)
}

// Bounds of a CloseRace beyond its steps' ctx.
const (
	raceLate   = time.Second      // how late past its ctx's deadline a step may return
	raceWait   = 10 * time.Second // how long the goroutines, Close and each Finish may take
	raceSteps  = 10               // MaxSteps per goroutine by default
	raceRounds = 10               // Rounds by default
)

// RaceSeed returns the seed of a randomised test: $LOCKKIT_RACE_SEED when
// set, else a fresh one. It logs the seed, with how to replay it.
func RaceSeed(t testing.TB) uint64 {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s, ok := os.LookupEnv(envSeed); ok {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("%s=%q: %v", envSeed, s, err)
		}
	}
	t.Logf("seed %d (replay with %s=%d)", seed, envSeed, seed)
	return seed
}

// Run runs the race and checks it; see [CloseRace].
func (cr CloseRace) Run(t *testing.T) {
	t.Helper()
	seed := RaceSeed(t)
	for k := range orDefault(cr.Rounds, raceRounds) {
		ok := t.Run(fmt.Sprintf("round%d", k), func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			rd := cr.Round(t)
			cr.round(t, rd, rand.New(rand.NewPCG(seed, uint64(k))))
			if rd.Check != nil {
				rd.Check(t)
			}
			if err := LeftBehind(before); err != nil {
				t.Errorf("goroutines left behind once Close and every call returned: %v", err)
			}
		})
		if !ok {
			return
		}
	}
}

// round runs one round, its random draws from rng.
func (cr CloseRace) round(t *testing.T, rd Round, rng *rand.Rand) {
	t.Helper()
	workers := orDefault(cr.Workers, 8)
	maxSteps := orDefault(cr.MaxSteps, raceSteps*workers)
	stepTimeout := orDefault(cr.StepTimeout, 2*time.Second)
	closeAt := rng.Int64N(int64(maxSteps) + 1)

	var (
		steps    atomic.Int64
		goClose  = make(chan struct{})
		closeNow = sync.OnceFunc(func() { close(goClose) })
		closed   = make(chan struct{})
	)
	if closeAt == 0 {
		closeNow()
	}
	go func() {
		<-goClose
		var wg sync.WaitGroup
		wg.Go(rd.Close)
		wg.Go(rd.Close)
		wg.Wait()
		close(closed)
	}()

	racers := make([]Racer, workers)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for i := range racers {
		racers[i] = rd.Racer(i, rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())))
		wg.Go(func() {
			for n := 0; ; n++ {
				after := Closed(rd.Done)
				if err := step(racers[i], stepTimeout, after); err != nil {
					errs <- fmt.Errorf("goroutine %d, step %d (closed before it: %v): %w", i, n, after, err)
					closeNow() // the others stop too
					return
				}
				if steps.Add(1) == closeAt {
					closeNow()
				}
				if after {
					return
				}
			}
		})
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	waitOrDump(t, stopped, "the goroutines to return")
	waitOrDump(t, closed, "Close to return")
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, r := range racers {
		ctx, cancel := context.WithTimeout(context.Background(), raceWait)
		err := r.Finish(ctx)
		cancel()
		if err != nil {
			t.Errorf("goroutine %d, giving back what it held: %v", i, err)
		}
	}
}

// step makes one step of r with a ctx ending after timeout, and reports
// it as an error too when it returned more than raceLate past that.
func step(r Racer, timeout time.Duration, closed bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	err := r.Step(ctx, closed)
	if took := time.Since(start); took > timeout+raceLate {
		return fmt.Errorf("returned (%v) after %v, its ctx ended after %v", err, took, timeout)
	}
	return err
}

// waitOrDump waits for ch to close, and fails the test with every
// goroutine's stack when that takes longer than raceWait.
func waitOrDump(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(raceWait):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("timed out after %v waiting for %s; goroutines:\n%s", raceWait, what, buf)
	}
}

// orDefault returns v, or def when v is 0.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

// Outcome returns nil when err is nil or matches one of allowed, and
// otherwise an error naming the call (op) and what it returned.
func Outcome(op string, err error, allowed ...error) error {
	if err == nil {
		return nil
	}
	for _, a := range allowed {
		if errors.Is(err, a) {
			return nil
		}
	}
	return fmt.Errorf("%s = %w, want nil or one of %v", op, err, allowed)
}

// maxGiveUp bounds the waits of a race's steps (see GiveUp).
const maxGiveUp = 100 * time.Millisecond

// GiveUp returns a copy of ctx that ends after a time drawn from rng, 10
// to 100 ms: the ctx of a wait in a race's step, so that waits end both
// ways, and soon.
func GiveUp(ctx context.Context, rng *rand.Rand) (context.Context, context.CancelFunc) {
	const least = 10 * time.Millisecond
	return context.WithTimeout(ctx, least+time.Duration(rng.Int64N(int64(maxGiveUp-least))))
}

// StepOutcome checks the outcome of a call (op) other than a release:
// once closed (the call began after Close), only ErrClosed is allowed;
// before, nil, ErrClosed or one of allowed.
func StepOutcome(op string, err error, closed bool, allowed ...error) error {
	if closed {
		return AfterClose(op, err, lockkit.ErrClosed)
	}
	return Outcome(op, err, append(allowed, lockkit.ErrClosed)...)
}

// AfterClose returns nil when err, the outcome of a call that began after
// its Client was closed, matches want, and otherwise an error naming the
// call (op).
func AfterClose(op string, err, want error) error {
	if errors.Is(err, want) {
		return nil
	}
	return fmt.Errorf("%s after Close = %v, want %v", op, err, want)
}
