package fair

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
)

// The scripts that touch the queue run queue.lua's helpers first.
var (
	//go:embed queue.lua
	queueLua string

	//go:embed acquire.lua
	acquireLua    string
	acquireScript = redis.NewScript(queueLua + acquireLua)

	//go:embed release.lua
	releaseLua    string
	releaseScript = redis.NewScript(queueLua + releaseLua)

	//go:embed leave.lua
	leaveLua    string
	leaveScript = redis.NewScript(queueLua + leaveLua)

	//go:embed forceunlock.lua
	forceLua    string
	forceScript = redis.NewScript(queueLua + forceLua)
)

// keys names the Redis keys and channels of one fair lock; all carry the
// lock's {NAME} hash tag.
type keys struct {
	lock     string // hash: owner → hold count, ':token', ':unlock'
	fence    string // fencing-token counter
	released string // recently released tokens
	queue    string // list of waiting owners, oldest first
	timeouts string // waiting owner → deadline (server ms)
	channels string // prefix of the waiters' own channels
}

// newKeys returns the keys of lock name under prefix.
func newKeys(prefix, name string) keys {
	k := internal.NewKeys(prefix, name)
	return keys{
		lock:     k.Lock,
		fence:    k.Fence,
		released: k.Released,
		queue:    k.Sub("queue"),
		timeouts: k.Sub("timeouts"),
		channels: k.Sub("ch") + ":",
	}
}

// acquired is the decoded reply of acquire.lua.
type acquired struct {
	count int64         // hold count; 0 when not acquired
	token int64         // fencing token when acquired
	wait  time.Duration // when not acquired: the wait bound; negative = none
}

// runAcquire runs acquire.lua for owner; join puts the owner in the queue
// (or keeps its place there) when the lock cannot be taken.
func runAcquire(ctx context.Context, c redis.Scripter, k keys, owner string, lease, waiterTimeout time.Duration, join bool) (acquired, error) {
	res, err := acquireScript.Run(ctx, c, []string{k.lock, k.queue, k.timeouts, k.fence},
		owner, lease.Milliseconds(), waiterTimeout.Milliseconds(), flag(join), k.channels).Int64Slice()
	if err != nil {
		return acquired{}, err
	}
	if len(res) != 2 {
		return acquired{}, fmt.Errorf("unexpected reply from acquire script: %v", res)
	}
	if res[0] == 0 {
		return acquired{wait: time.Duration(res[1]) * time.Millisecond}, nil
	}
	return acquired{count: res[0], token: res[1]}, nil
}

// runRelease runs release.lua and returns the remaining hold count, or -1
// when the hold is gone.
func runRelease(ctx context.Context, c redis.Scripter, k keys, owner string, token int64, unlockID string, window time.Duration) (int64, error) {
	return releaseScript.Run(ctx, c, []string{k.lock, k.queue, k.timeouts, k.released},
		owner, token, unlockID, window.Milliseconds(), k.channels).Int64()
}

// left is the decoded reply of leave.lua.
type left struct {
	removed bool // the owner's queue entry was removed
	undone  bool // a hold was cut back or deleted
}

// runLeave runs leave.lua: remove the owner's queue entry if remove is set,
// and if undo is set cut the owner's hold back to the known token and count
// (0, 0 for none).
func runLeave(ctx context.Context, c redis.Scripter, k keys, owner string, remove, undo bool, token, count int64) (left, error) {
	res, err := leaveScript.Run(ctx, c, []string{k.lock, k.queue, k.timeouts},
		owner, flag(remove), flag(undo), token, count, k.channels).Int64Slice()
	if err != nil {
		return left{}, err
	}
	if len(res) != 2 {
		return left{}, fmt.Errorf("unexpected reply from leave script: %v", res)
	}
	return left{removed: res[0] == 1, undone: res[1] == 1}, nil
}

// runForceUnlock runs forceunlock.lua and reports whether a hold was
// removed.
func runForceUnlock(ctx context.Context, c redis.Scripter, k keys) (bool, error) {
	n, err := forceScript.Run(ctx, c, []string{k.lock, k.queue, k.timeouts}, k.channels).Int64()
	return n == 1, err
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
