package main

import (
	"bytes"
	"context"
	"maps"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
)

// afterFirstRead is a go-redis hook that runs then once, right after the
// first read-only script (the snapshot unlock reads the lock with)
// returns its reply.
type afterFirstRead struct {
	then func()
	done atomic.Bool
}

// DialHook implements redis.Hook.
func (*afterFirstRead) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessPipelineHook implements redis.Hook.
func (*afterFirstRead) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// ProcessHook implements redis.Hook.
func (h *afterFirstRead) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if n := cmd.Name(); err == nil && (n == "evalsha_ro" || n == "eval_ro") && h.done.CompareAndSwap(false, true) {
			h.then()
		}
		return err
	}
}

// TestUnlock_force_refuses_a_lock_that_changed_kind_since_it_was_read
// checks what doc.go says of unlock: if the name changed kind between the
// read and the force unlock, the library refuses and nothing changes.
// The reentrant lock read is released and the name taken as a read-write
// lock's read before unlock frees it: unlock fails (status 1) with
// lockkit.ErrWrongKind, and the read hold is left as it was.
func TestUnlock_force_refuses_a_lock_that_changed_kind_since_it_was_read(t *testing.T) {
	s := redistest.StartServer(t)
	f := newFixture(t, s.Client(t))
	m := reentrant.New(f.lc, f.name)
	redistest.MustLock(t, m)
	rw := rwlock.New(f.process(t), f.name)
	var before map[string]string
	hook := &afterFirstRead{then: func() {
		redistest.MustUnlock(t, m)
		if err := rw.RLock(f.ctx); err != nil {
			t.Errorf("RLock: %v", err)
		}
		before = f.hash(t)
	}}
	rc := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { _ = rc.Close() })
	rc.AddHook(hook)
	opts := defaultOptions()
	opts.prefix = f.prefix
	var stdout, stderr bytes.Buffer
	err := unlock(f.ctx, &env{opts: opts, rc: rc, stdout: &stdout, stderr: &stderr}, f.name, &unlockFlags{force: true, yes: true})
	redistest.WantErr(t, err, lockkit.ErrWrongKind)
	if err != nil && !strings.Contains(err.Error(), "changed kind") {
		t.Errorf("unlock: %v, want it to say the lock changed kind", err)
	}
	if !hook.done.Load() {
		t.Fatal("unlock read no snapshot")
	}
	if after := f.hash(t); !maps.Equal(before, after) {
		t.Errorf("the refused unlock changed the read-write lock: %q, then %q", before, after)
	}
	if err := rw.RUnlock(f.ctx); err != nil {
		t.Errorf("RUnlock after the refused unlock: %v, want the read hold intact", err)
	}
}
