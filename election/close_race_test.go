package election_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// maxObservers bounds the observers of one round of an election's race.
const maxObservers = 4

// TestClose_racing_calls_on_shared_Elections_leaves_nobody_leading:
// goroutines share three candidates (Election values) and the Leaderships
// they win (any goroutine resigns any), campaigning, resigning, reading the
// leader and observing while the Client closes at a seeded random point, on
// a fast and a slow network. No call races, panics or hangs, each returns
// what the docs allow (ErrInvalid for a candidate that campaigns already,
// ErrClosed once the Client is closed), two Leaderships never run at once
// while the Client is open, every Leadership has ended and every observer's
// channel is closed once Close has returned, no goroutine is left, and once
// the Leaderships are resigned nothing of the election is left in Redis.
func TestClose_racing_calls_on_shared_Elections_leaves_nobody_leading(t *testing.T) {
	redistest.RaceOnNetworks(t, redistest.StartServer(t), func(t *testing.T, lc *lockkit.Client, name string) redistest.Round {
		er := &electionRace{done: lc.Done()}
		for range 3 {
			er.es = append(er.es, election.New(lc, name))
		}
		return redistest.Round{
			Racer: func(i int, rng *rand.Rand) redistest.Racer {
				return &electionRacer{electionRace: er, e: er.es[i%len(er.es)], value: fmt.Sprint("g", i), rng: rng}
			},
			Check: func(t *testing.T) { redistest.AssertCleanWithin(t, lc.Redis(), name, time.Second) },
		}
	})
}

// electionRace is what the goroutines of an election's race share.
type electionRace struct {
	es   []*election.Election
	done <-chan struct{}

	mu        sync.Mutex
	leaders   []*election.Leadership // won and not resigned yet
	observers []<-chan election.Leader
	stop      []context.CancelFunc // the observers' ctx
}

// electionRacer is one goroutine of an election's race.
type electionRacer struct {
	*electionRace
	e     *election.Election
	value string
	rng   *rand.Rand
}

func (r *electionRacer) Step(ctx context.Context, closed bool) error {
	switch p := r.rng.IntN(100); {
	case p < 30:
		if l := r.take(); l != nil {
			return resign(ctx, l)
		}
	case p < 40:
		_, err := r.e.Leader(ctx)
		return redistest.StepOutcome("Leader", err, closed)
	case p < 50:
		return r.observe(closed)
	}
	ctx, cancel := redistest.GiveUp(ctx, r.rng)
	defer cancel()
	l, err := r.e.Campaign(ctx, r.value)
	if l == nil {
		return redistest.StepOutcome("Campaign", err, closed, lockkit.ErrNotObtained, lockkit.ErrInvalid)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	if closed {
		errs = append(errs, errors.New("a Campaign after Close returned a Leadership"))
	}
	for _, other := range r.leaders {
		if other.Context().Err() == nil && l.Context().Err() == nil && !redistest.Closed(r.done) {
			errs = append(errs, fmt.Errorf("%v won while %v leads", l.Leader(), other.Leader()))
		}
	}
	r.leaders = append(r.leaders, l)
	return errors.Join(append(errs, err)...)
}

// observe starts an observer that only Close ends (its ctx outlives the
// round), unless the round has as many as it may.
func (r *electionRacer) observe(closed bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.observers) >= maxObservers {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), redistest.Hang)
	ch, err := r.e.Observe(ctx)
	if err != nil {
		cancel()
		return redistest.StepOutcome("Observe", err, closed)
	}
	r.observers, r.stop = append(r.observers, ch), append(r.stop, cancel)
	if closed {
		return errors.New("an Observe after Close returned a channel")
	}
	return nil
}

// take removes a Leadership not resigned yet and returns it; nil when
// there is none.
func (er *electionRace) take() *election.Leadership {
	er.mu.Lock()
	defer er.mu.Unlock()
	if len(er.leaders) == 0 {
		return nil
	}
	l := er.leaders[0]
	er.leaders = er.leaders[1:]
	return l
}

// resign resigns l and checks the outcome.
func resign(ctx context.Context, l *election.Leadership) error {
	return redistest.Outcome("Resign", l.Resign(ctx), lockkit.ErrNotHeld, lockkit.ErrLost, lockkit.ErrClosed)
}

// Finish checks, Close having returned, that every observer's channel is
// closed (within a second) and every Leadership has ended, and resigns
// the Leaderships.
func (r *electionRacer) Finish(ctx context.Context) error {
	var errs []error
	r.mu.Lock()
	observers, stop := r.observers, r.stop
	r.observers, r.stop = nil, nil
	r.mu.Unlock()
	for i, ch := range observers {
		if err := drained(ch, time.Second); err != nil {
			errs = append(errs, fmt.Errorf("observer %d: %w", i, err))
		}
		stop[i]()
	}
	for l := r.take(); l != nil; l = r.take() {
		if l.Context().Err() == nil {
			errs = append(errs, fmt.Errorf("the Leadership of %v has not ended once Close returned", l.Leader()))
		}
		errs = append(errs, resign(ctx, l))
	}
	return errors.Join(errs...)
}

// drained reads ch until it is closed, and returns an error if that
// takes longer than d.
func drained(ch <-chan election.Leader, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return nil
			}
		case <-timer.C:
			return fmt.Errorf("channel still open %v after Close returned", d)
		}
	}
}
