package semaphore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// queueEnv is a semaphore of one permit, held, on a real server, with
// waiters that queue behind the hold one after the other.
type queueEnv struct {
	t    *testing.T
	rc   redis.UniversalClient
	name string
	held *semaphore.Permits
	got  chan *semaphore.Permits // the permits of every waiter served
}

// newQueueEnv takes the only permit of a new semaphore of rc and queues n
// waiters behind it, each on a Client of its own, in order.
func newQueueEnv(t *testing.T, rc redis.UniversalClient, n int) *queueEnv {
	s, name := newSemaphore(t, rc, 1)
	e := &queueEnv{t: t, rc: rc, name: name, held: mustAcquire(t, s, 1), got: make(chan *semaphore.Permits, n)}
	ctx := redistest.Ctx(t, time.Minute)
	for i := range n {
		acquireTo(ctx, t, semaphore.New(redistest.Lockkit(t, rc), name, 1), 1, e.got)
		waitQueued(t, rc, name, i+1)
	}
	return e
}

// queue returns the waiters' ids in queue order.
func (e *queueEnv) queue() []string {
	e.t.Helper()
	zs, err := e.rc.ZRange(context.Background(), "lockkit:{"+e.name+"}:waiters", 0, -1).Result()
	if err != nil {
		e.t.Fatal(err)
	}
	var ids []string
	for _, m := range zs {
		_, id, _ := strings.Cut(m, ":")
		ids = append(ids, id)
	}
	return ids
}

// serve releases the held permit and checks that the waiters are then
// served one at a time in the order of want, each releasing in turn.
func (e *queueEnv) serve(want []string) {
	e.t.Helper()
	mustRelease(e.t, e.held)
	for i, id := range want {
		p := served(e.t, e.got, "the next waiter to be served")
		if got := strings.TrimSuffix(p.IDs()[0], "/1"); got != id {
			e.t.Fatalf("waiter %s served in turn %d, want %s", got, i, id)
		}
		mustRelease(e.t, p)
	}
}

// TestAcquire_server_stall_shorter_than_the_waiter_timeout_keeps_the_order:
// Redis stops answering for 2 s while four waiters queue behind the only
// permit; their entries' deadlines, more than 3 s ahead when it began
// (the waiter timeout is 5 s, renewed every third of it), do not pass
// during the stall, so the queue comes out of it as it was and the
// waiters are served in the order they joined.
func TestAcquire_server_stall_shorter_than_the_waiter_timeout_keeps_the_order(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newQueueEnv(t, srv.Client(t), 4)
	before := e.queue()
	srv.Stall(t, 2*time.Second)
	if after := e.queue(); !slices.Equal(after, before) {
		t.Fatalf("queue after the stall = %v, want %v", after, before)
	}
	e.serve(before)
}

// TestAcquire_server_stall_longer_than_the_waiter_timeout_requeues_every_waiter:
// Redis stops answering for 6 s, past the deadline of every entry of the
// queue (the waiter timeout of 5 s runs on the server's clock). The
// waiters keep attempting, so none is lost: the queue forms again, with
// every waiter, in the order their attempts reach the server after the
// stall, and the waiters are served in that order.
func TestAcquire_server_stall_longer_than_the_waiter_timeout_requeues_every_waiter(t *testing.T) {
	srv := redistest.StartServer(t)
	e := newQueueEnv(t, srv.Client(t), 4)
	joined := e.queue()
	srv.Stall(t, 6*time.Second)
	var queue []string
	redistest.Eventually(t, redistest.Hang, "every waiter queued again", func() bool {
		queue = e.queue()
		return slices.Equal(slices.Sorted(slices.Values(queue)), slices.Sorted(slices.Values(joined)))
	})
	e.serve(queue)
}
