package core

import (
	"errors"
	"testing"

	"github.com/lockkit/lockkit"
)

// TestAfterLost_calls_in_the_call_that_finds_the_hold_lost: a function
// given before the loss is called once, by Lose itself, with the loss,
// after the lost channel closed; one given after the loss is called at
// once; a second Lose calls nothing.
func TestAfterLost_calls_in_the_call_that_finds_the_hold_lost(t *testing.T) {
	h := NewHold(1)
	var got []error
	h.AfterLost(func(err error) {
		select {
		case <-h.Done():
		default:
			t.Error("called before the lost channel closed")
		}
		got = append(got, err)
	})
	if len(got) != 0 {
		t.Fatalf("called before the loss: %v", got)
	}
	cause := errors.New("cause")
	h.Lose("x", cause)
	if len(got) != 1 || !errors.Is(got[0], lockkit.ErrLost) || !errors.Is(got[0], cause) {
		t.Fatalf("after Lose: %v; want one call with ErrLost and its cause", got)
	}
	h.Lose("x", errors.New("again"))
	if len(got) != 1 {
		t.Fatalf("a second Lose called it again: %v", got)
	}
	h.AfterLost(func(err error) { got = append(got, err) })
	if len(got) != 2 || got[1] != h.Err() {
		t.Fatalf("given after the loss: %v; want a call at once with the loss", got)
	}
}
