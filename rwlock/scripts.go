package rwlock

import (
	"context"
	_ "embed"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal"
	"github.com/lockkit/lockkit/internal/hashlock"
)

// Each script is common.lua followed by the operation's file.
var (
	//go:embed common.lua
	commonLua string

	//go:embed lock.lua
	lockLua    string
	lockScript = newScript(lockLua)

	//go:embed rlock.lua
	rlockLua    string
	rlockScript = newScript(rlockLua)

	//go:embed unlock.lua
	unlockLua    string
	unlockScript = newScript(unlockLua)

	//go:embed runlock.lua
	runlockLua    string
	runlockScript = newScript(runlockLua)

	//go:embed renew.lua
	renewLua    string
	renewScript = newScript(renewLua)

	//go:embed withdraw.lua
	withdrawLua    string
	withdrawScript = newScript(withdrawLua)

	//go:embed forceunlock.lua
	forceLua    string
	forceScript = newScript(forceLua)

	//go:embed state.lua
	stateLua    string
	stateScript = newScript(stateLua)

	//go:embed undo.lua
	undoLua    string
	undoScript = newScript(undoLua)
)

func newScript(op string) *redis.Script {
	return redis.NewScript(commonLua + "\n" + op)
}

// errReply reports a script reply of an unexpected shape.
var errReply = errors.New("unexpected reply from script")

// keys are the Redis names of one lock; see common.lua.
type keys struct {
	// all are the five keys every script takes, in order: hash, leases,
	// writers, fence, released.
	all []string
	// rch wakes readers, wch writers.
	rch, wch string
}

// newKeys returns the keys of lock name under prefix.
func newKeys(prefix, name string) keys {
	k := internal.NewKeys(prefix, name)
	return keys{
		all: []string{k.Lock, k.Sub("leases"), k.Sub("writers"), k.Fence, k.Released},
		rch: k.Channel,
		wch: k.Sub("wch"),
	}
}

// acquired is the decoded reply of lock.lua and rlock.lua.
type acquired struct {
	count int64 // hold count now; 0 refused; -1 upgrade refused
	token int64 // the hold's token, or the wait in ms when refused
}

func runAcquire(ctx context.Context, s *redis.Script, c redis.Scripter, k keys, args ...any) (acquired, error) {
	res, err := s.Run(ctx, c, k.all, args...).Int64Slice()
	if err == nil && len(res) != 2 {
		err = errReply
	}
	if err != nil {
		return acquired{}, err
	}
	return acquired{count: res[0], token: res[1]}, nil
}

// lockWrite runs lock.lua; intent 0 registers no intent.
func lockWrite(ctx context.Context, c redis.Scripter, k keys, owner string, lease, intent time.Duration) (acquired, error) {
	return runAcquire(ctx, lockScript, c, k, owner, lease.Milliseconds(), intent.Milliseconds())
}

// lockRead runs rlock.lua.
func lockRead(ctx context.Context, c redis.Scripter, k keys, owner string, lease time.Duration, preferWriters bool) (acquired, error) {
	prefer := "0"
	if preferWriters {
		prefer = "1"
	}
	return runAcquire(ctx, rlockScript, c, k, owner, lease.Milliseconds(), prefer)
}

// unlockWrite runs unlock.lua and returns the remaining write hold count,
// or -1 when the hold is gone.
func unlockWrite(ctx context.Context, c redis.Scripter, k keys, owner string, token int64, id string) (int64, error) {
	return unlockScript.Run(ctx, c, k.all, owner, token, id, hashlock.ReleaseWindow.Milliseconds(), k.rch, k.wch).Int64()
}

// unlockRead runs runlock.lua and returns the remaining read hold count, or
// -1 when the hold is gone.
func unlockRead(ctx context.Context, c redis.Scripter, k keys, owner string, token int64, id string) (int64, error) {
	return runlockScript.Run(ctx, c, k.all, owner, token, id, hashlock.ReleaseWindow.Milliseconds(), k.wch).Int64()
}

// withdraw runs withdraw.lua and reports whether an intent was removed.
func withdraw(ctx context.Context, c redis.Scripter, k keys, owner string) (bool, error) {
	n, err := withdrawScript.Run(ctx, c, k.all, owner, k.rch).Int64()
	return n == 1, err
}

// undoHold runs undo.lua for hold (OWNER:w or OWNER:r), known to the caller
// with token and count (0, 0 for none), and reports whether it cut the hold
// back or dropped it.
func undoHold(ctx context.Context, c redis.Scripter, k keys, hold string, token, count int64) (bool, error) {
	n, err := undoScript.Run(ctx, c, k.all, hold, token, count, k.rch, k.wch).Int64()
	return n == 1, err
}

// forceUnlock runs forceunlock.lua and reports whether holds were removed.
func forceUnlock(ctx context.Context, c redis.Scripter, k keys) (bool, error) {
	n, err := forceScript.Run(ctx, c, k.all, k.rch, k.wch).Int64()
	return n == 1, err
}

// readState runs state.lua.
func readState(ctx context.Context, c redis.Scripter, k keys, owner string) (State, error) {
	res, err := stateScript.Run(ctx, c, k.all, owner).Int64Slice()
	if err == nil && (len(res) != 6 || res[0] < 0 || res[0] > 2) {
		err = errReply
	}
	if err != nil {
		return State{}, err
	}
	return State{
		Mode:           Mode(res[0]),
		Readers:        int(res[1]),
		HoldCount:      int(res[2]),
		RHoldCount:     int(res[3]),
		TTL:            time.Duration(res[4]) * time.Millisecond,
		WaitingWriters: int(res[5]),
	}, nil
}
