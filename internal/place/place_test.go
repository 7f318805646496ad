package place

import (
	"sync/atomic"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, nil) }

// TestLeave_takes_back_only_for_the_last_goroutine_counted checks the
// count of a place: Leave runs its take only for the last goroutine of
// the owner to give up, Idle only when none is counted, an Exit counts
// out without taking back, and a place nobody uses is forgotten.
func TestLeave_takes_back_only_for_the_last_goroutine_counted(t *testing.T) {
	c0, _ := redistest.Silent(t)
	k := Key{Client: c0, Lock: "lock", Owner: "o"}
	taken := 0
	take := func() error { taken++; return nil }
	a, b, c := Enter(k), Enter(k), Enter(k)
	if a != b || b != c {
		t.Fatal("Enter of one key returned different places")
	}
	steps := []struct {
		what string
		do   func() error
		want int // takes so far
	}{
		{"Leave of the first of three", func() error { return a.Leave(take) }, 0},
		{"Idle while two are counted", func() error { return Idle(k, take) }, 0},
		{"Exit of the second", func() error { b.Exit(); return nil }, 0},
		{"Leave of the last", func() error { return c.Leave(take) }, 1},
		{"Idle once none is counted", func() error { return Idle(k, take) }, 2},
	}
	for _, s := range steps {
		if err := s.do(); err != nil || taken != s.want {
			t.Fatalf("%s: err %v, %d takes; want %d", s.what, err, taken, s.want)
		}
	}
	c0.Locals(func(m map[any]any) {
		if n := len(m); n != 0 {
			t.Fatalf("%d places known once nobody uses them, want 0", n)
		}
	})
}

// TestLeave_of_one_of_several_does_not_wait_for_their_attempts checks that
// a goroutine that gives up while others of the owner still wait leaves
// at once, even while an attempt of another is held up (a server that
// stopped answering): it takes nothing back, so it has nothing to wait
// for, and its Lock returns within its ctx. The last one's take still
// waits for the attempts in flight.
func TestLeave_of_one_of_several_does_not_wait_for_their_attempts(t *testing.T) {
	c0, _ := redistest.Silent(t)
	k := Key{Client: c0, Lock: "lock", Owner: "o"}
	a, b := Enter(k), Enter(k)
	started, release := make(chan struct{}), make(chan struct{})
	var attempted atomic.Bool
	go a.Attempt(func() {
		close(started)
		<-release
		attempted.Store(true)
	})
	<-started
	left := make(chan error, 1)
	go func() {
		left <- b.Leave(func() error { t.Error("take ran while another goroutine waits"); return nil })
	}()
	if err := redistest.Receive(t, left, redistest.Hang, "the Leave of one of two"); err != nil {
		t.Fatalf("Leave of one of two = %v", err)
	}

	// The last one's take runs after the attempt in flight.
	taken := make(chan struct{})
	go func() {
		_ = a.Leave(func() error {
			if !attempted.Load() {
				t.Error("the last Leave took back while an attempt was in flight")
			}
			close(taken)
			return nil
		})
	}()
	close(release)
	redistest.Receive(t, taken, redistest.Hang, "the last Leave's take")
}
