package soak_test

import (
	"context"
	"sync"
	"testing"

	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/internal/redistest"
)

// observer is an Observe of an election that runs across a whole soak
// and keeps the last leader it reported.
type observer struct {
	mu     sync.Mutex
	last   election.Leader
	cancel context.CancelFunc
	done   chan struct{}
}

// observe starts an observer of e's election on side b.
func (e *env) observe(t *testing.T) *observer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	changes, err := election.New(e.B.Nodes[0], e.Name).Observe(ctx)
	if err != nil {
		t.Fatalf("Observe: %v", err)
	}
	o := &observer{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(o.done)
		for l := range changes {
			o.mu.Lock()
			o.last = l
			o.mu.Unlock()
		}
	}()
	return o
}

// sees waits until the observer's last report is a leader that campaigned
// with value.
func (o *observer) sees(t *testing.T, value string) {
	t.Helper()
	redistest.Eventually(t, callBound, "the observer to report "+value+" leading", func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.last.Value == value
	})
}

// stop ends the observer and waits until its channel is closed.
func (o *observer) stop(t *testing.T) {
	t.Helper()
	o.cancel()
	redistest.Receive(t, o.done, callBound, "the observer's channel to close")
}
