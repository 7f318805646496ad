package redistest

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestHammer_counts_the_holds_of_a_working_lock(t *testing.T) {
	c, name := newQueueLock(t)
	lockers := []Locker{&queueLock{c: c, name: name}, &queueLock{c: c, name: name}, &queueLock{c: c, name: name}}
	holds, err := Hammer(Ctx(t, time.Minute), lockers, 20)
	if err != nil || holds != 60 {
		t.Fatalf("Hammer = %d, %v; want 60 holds, no error", holds, err)
	}
}

func TestHammer_reports_overlap_of_a_lock_that_excludes_nobody(t *testing.T) {
	lockers := make([]Locker, 8)
	for i := range lockers {
		lockers[i] = noLock{}
	}
	if _, err := Hammer(Ctx(t, time.Minute), lockers, 1000); !errors.Is(err, ErrOverlap) {
		t.Fatalf("Hammer = %v, want ErrOverlap", err)
	}
}

// failingLock fails its n-th Lock.
type failingLock struct {
	n     int
	calls int
}

var errLockFailed = errors.New("lock failed")

func (l *failingLock) Lock(context.Context) error {
	if l.calls++; l.calls == l.n {
		return errLockFailed
	}
	return nil
}
func (l *failingLock) Unlock(context.Context) error { return nil }

func TestHammer_stops_a_goroutine_at_its_first_error(t *testing.T) {
	holds, err := Hammer(Ctx(t, time.Minute), []Locker{&failingLock{n: 3}}, 10)
	if !errors.Is(err, errLockFailed) || holds != 2 {
		t.Fatalf("Hammer = %d, %v; want 2 holds, then the Lock error", holds, err)
	}
}
