package latch_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// channel is the pub/sub channel of latch name made from c under the
// default prefix.
func channel(c *lockkit.Client, name string) string { return core.KeysFor(c, name).Channel }

// awaitAsync starts l.Await(ctx) in a goroutine and returns the channel
// its error arrives on.
func awaitAsync(ctx context.Context, l *latch.Latch) <-chan error {
	got := make(chan error, 1)
	go func() { got <- l.Await(ctx) }()
	return got
}

// waitSleeping waits until n waiters of c sleep on latch name's channel.
func waitSleeping(t *testing.T, c *lockkit.Client, name string, n int) {
	t.Helper()
	redistest.Eventually(t, redistest.Hang, "the waiters to sleep", func() bool {
		return c.Notifier().Sleeping(channel(c, name)) == n
	})
}

// mustCountDown counts l down and fails the test unless want is left.
func mustCountDown(t *testing.T, l *latch.Latch, want int) {
	t.Helper()
	n, err := l.CountDown(redistest.Ctx(t, redistest.Hang))
	if err != nil || n != want {
		t.Fatalf("CountDown = %d, %v; want %d", n, err, want)
	}
}

// afterScript is a go-redis hook that, once armed, calls then after the
// next script that succeeds, and disarms itself; the error of then is the
// script's. then gets the command and next, to send it again.
type afterScript struct {
	armed bool
	then  func(ctx context.Context, cmd redis.Cmder, next redis.ProcessHook) error
}

// resendScript is the then of an afterScript that sends the script again,
// as go-redis does when a read times out and it retries.
func resendScript(ctx context.Context, cmd redis.Cmder, next redis.ProcessHook) error {
	return next(ctx, cmd)
}

func (h *afterScript) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *afterScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && h.armed && redistest.IsScript(cmd) {
			h.armed = false
			err = h.then(ctx, cmd, next)
		}
		return err
	}
}

func (h *afterScript) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// hooked returns a new client to the Redis of rc with hook h, closed in
// t.Cleanup.
func hooked(t *testing.T, rc redis.UniversalClient, h redis.Hook) redis.UniversalClient {
	t.Helper()
	wrc := redistest.SpecClient(redistest.ClientSpec(rc))
	t.Cleanup(func() { _ = wrc.Close() })
	wrc.AddHook(h)
	return wrc
}

// sleepingAwait starts an Await on a new latch of 1 of c and returns once
// it sleeps: the latch's name and the Await's outcome to come.
func sleepingAwait(t *testing.T, c *lockkit.Client) (string, <-chan error) {
	t.Helper()
	name := redistest.Unique(t)
	got := awaitAsync(redistest.Ctx(t, redistest.Hang), latch.New(c, name, 1))
	waitSleeping(t, c, name, 1)
	return name, got
}

// latchOfOne returns a Latch of count 1, named name, of c with opts.
func latchOfOne(c *lockkit.Client, name string, opts ...lockkit.Option) *latch.Latch {
	return latch.New(c, name, 1, opts...)
}
