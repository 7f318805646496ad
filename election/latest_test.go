package election

import (
	"testing"
	"time"
)

// TestLatest_forwards_the_newest_value_to_an_observer_that_fell_behind:
// values put while nobody reads replace each other, and the one the
// observer then reads is the last put; one put while the observer reads is
// delivered as it is.
func TestLatest_forwards_the_newest_value_to_an_observer_that_fell_behind(t *testing.T) {
	l := newLatest()
	out := make(chan Leader)
	stopped := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.forward(out, stopped)
	}()
	defer func() {
		close(stopped)
		<-done
	}()
	receive := func(what string) Leader {
		t.Helper()
		select {
		case v := <-out:
			return v
		case <-time.After(10 * time.Second):
			t.Fatalf("nothing forwarded: %s", what)
			return Leader{}
		}
	}
	l.put(Leader{Value: "first", Term: 1})
	if v := receive("the first"); v.Value != "first" {
		t.Fatalf("first = %+v", v)
	}
	for i, v := range []string{"a", "b", "c", "d"} {
		l.put(Leader{Value: v, Term: int64(i + 2)})
	}
	if v := receive("the latest"); v.Value != "d" || v.Term != 5 {
		t.Fatalf("after four values put while nobody read, got %+v; want d, the latest", v)
	}
	select {
	case v := <-out:
		t.Fatalf("forwarded %+v after the latest, which was already taken", v)
	case <-time.After(50 * time.Millisecond):
	}
}
