package lockkit_test

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// goroutineID returns the id of the calling goroutine, from its stack
// trace's first line ("goroutine 7 [running]:").
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf), "goroutine "), " ")
	return id
}

// workers returns how many goroutines of c's Go are there, running or
// waiting for an f: those whose stack shows work with c as its receiver.
func workers(c *lockkit.Client) int {
	var b bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return strings.Count(b.String(), fmt.Sprintf("lockkit.(*Client).work(%p", c))
}

// goAndWait runs f through c.Go and waits until it has run.
func goAndWait(c *lockkit.Client, f func()) {
	done := make(chan struct{})
	c.Go(func() {
		defer close(done)
		f()
	})
	<-done
}

// TestGo_runs_one_f_after_another_in_one_goroutine checks that a
// goroutine of Client.Go that has run its f runs the next: a Client whose
// calls hand their requests to Go one at a time starts one goroutine, not
// one per request.
func TestGo_runs_one_f_after_another_in_one_goroutine(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc)
	defer c.Close()
	lockkit.SetWorkIdle(c, time.Hour) // none ends while the test looks
	ids := map[string]bool{}
	for range 20 {
		goAndWait(c, func() { ids[goroutineID()] = true })
		redistest.Eventually(t, 10*time.Second, "the goroutine to wait for more", func() bool {
			return lockkit.WaitingForWork(c) == 1
		})
	}
	if len(ids) != 1 {
		t.Fatalf("20 fs run one after another ran in %d goroutines; want 1", len(ids))
	}
	if n := workers(c); n != 1 {
		t.Fatalf("%d goroutines of Go; want 1", n)
	}
}

// TestGo_runs_fs_at_once_each_in_a_goroutine checks that fs handed to Go
// while others run do not wait for them.
func TestGo_runs_fs_at_once_each_in_a_goroutine(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc)
	defer c.Close()
	const n = 8
	var all sync.WaitGroup
	all.Add(n)
	release := make(chan struct{})
	for range n {
		c.Go(func() {
			all.Done()
			<-release // each waits for every other to have started
		})
	}
	all.Wait()
	close(release)
}

// TestClose_ends_the_goroutines_that_wait_for_an_f checks that Close
// returns only once the goroutines of Go that wait for more fs are gone,
// and that those of a Client left open end by themselves soon.
func TestClose_ends_the_goroutines_that_wait_for_an_f(t *testing.T) {
	_, rc := redistest.Mini(t)
	t.Run("Close", func(t *testing.T) {
		c := lockkit.New(rc)
		lockkit.SetWorkIdle(c, time.Hour) // only Close ends them
		var running sync.WaitGroup
		running.Add(3)
		release := make(chan struct{})
		for range 3 {
			c.Go(func() {
				running.Done()
				<-release
			})
		}
		running.Wait()
		close(release)
		redistest.Eventually(t, 10*time.Second, "3 goroutines to wait for more", func() bool {
			return lockkit.WaitingForWork(c) == 3
		})
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if n := workers(c); n != 0 {
			t.Fatalf("%d goroutines of Go are left once Close returned; want 0", n)
		}
		ran := make(chan struct{})
		c.Go(func() { close(ran) }) // after Close: in a goroutine of its own
		<-ran
	})
	t.Run("idle", func(t *testing.T) {
		// A Client left open keeps no goroutine once its calls are done:
		// none is left by the time goleak, which waits a moment itself,
		// looks (the connection to the server is there before).
		if err := rc.Ping(t.Context()).Err(); err != nil {
			t.Fatal(err)
		}
		before := goleak.IgnoreCurrent()
		c := lockkit.New(rc)
		defer c.Close()
		m := reentrant.New(c, redistest.Unique(t))
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a ctx that can end: each request runs in a goroutine of Go
		defer cancel()
		if err := m.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if err := goleak.Find(before); err != nil {
			t.Fatalf("goroutines left by a Lock and Unlock of a Client left open: %v", err)
		}
	})
}

// TestClose_waits_for_no_f_that_ended_by_runtime_Goexit checks that an f
// of Go that ends its goroutine (runtime.Goexit, as t.FailNow does) still
// counts as done: Close does not wait for it for ever.
func TestClose_waits_for_no_f_that_ended_by_runtime_Goexit(t *testing.T) {
	_, rc := redistest.Mini(t)
	c := lockkit.New(rc)
	ended := make(chan struct{})
	c.Go(func() {
		defer close(ended)
		runtime.Goexit()
	})
	<-ended
	closed := make(chan error, 1)
	go func() { closed <- c.Close() }()
	if err := redistest.Receive(t, closed, 10*time.Second, "Close to return"); err != nil {
		t.Fatal(err)
	}
}
