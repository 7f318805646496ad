package rwlock

import (
	"context"
	"embed"
	"fmt"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/core"
	"github.com/lockkit/lockkit/internal/lua"
)

// The scripts of the read-write lock: each is its own file after what it
// uses of the prelude and common.lua. The engine runs a write hold's and a read hold's sets
// (see core.Spec); this file runs the others.
var (
	writeScripts = lua.Set{
		Acquire: script("lock.lua"),
		Release: script("unlock.lua"),
		Renew:   renewScript,
		Undo:    undoScript,
		Force:   script("forceunlock.lua"),
	}
	readScripts = lua.Set{
		Acquire: script("rlock.lua"),
		Release: script("runlock.lua"),
		Renew:   renewScript,
		Undo:    undoScript,
	}
	// Both holds renew and undo with the same scripts.
	renewScript = script("renew.lua")
	undoScript  = script("undo.lua")

	withdrawScript = script("withdraw.lua")
	passScript     = script("pass.lua")
	stateScript    = script("state.lua")
)

//go:embed *.lua
var files embed.FS

// script returns the script of the named file, after what it uses of the
// prelude and common.lua.
var script = lua.Loader(files, "common.lua")

// keys are the Redis names of one lock; see common.lua.
type keys struct {
	// all are the seven keys every script takes, in order: hash, leases,
	// writers, fence, released, wprocs, turn.
	all []string
	// renew are the keys of renew.lua: the hash and the leases, which a
	// live hold keeps (see core.Spec's RenewKeys).
	renew []string
	// rch wakes readers, wch writers.
	rch, wch string
}

// newKeys returns the keys of a lock whose engine keys are k.
func newKeys(k core.Keys) keys {
	all := []string{k.Base, k.Sub("leases"), k.Sub("writers"), k.Fence, k.Released, k.Sub("wprocs"), k.Turn}
	return keys{
		all:   all,
		renew: all[:2],
		rch:   k.Channel,
		wch:   k.Chan("wch"),
	}
}

// writerWaiter returns how the writers of client c wait for the lock with
// keys k: by pub/sub, one process woken per release where the server can
// tell whether a process still listens (see core.OneProcessWaiter), each
// process on its own channel wch:ID; else one writer per process on wch.
func writerWaiter(c *lockkit.Client, k keys) core.PubSub {
	return core.OneProcessWaiter(c, k.wch, passScript, k.all)
}

// holds returns the ids of owner's write and read holds.
func holds(owner string) (w, r string) { return owner + ":w", owner + ":r" }

// refused turns lock.lua's negative code, a read-to-write upgrade, into
// its error.
func (m *RWMutex) refused(int64) error {
	return fmt.Errorf("%w: %q: release the read lock (RUnlock) before Lock", lockkit.ErrUpgrade, m.b.Cfg.Name)
}

// withdraw runs withdraw.lua for the writer whose write hold is w and
// reports whether an intent was removed.
func withdraw(ctx context.Context, c *lockkit.Client, k keys, w string) (bool, error) {
	n, err := core.Call(ctx, c, func(ctx context.Context) (int64, error) {
		return withdrawScript.Run(ctx, c.Redis(), k.all, w, k.rch).Int64()
	}, nil)
	return n == 1, err
}

// forceUnlock runs forceunlock.lua and reports whether holds were removed.
func forceUnlock(ctx context.Context, c *lockkit.Client, k keys) (bool, error) {
	n, err := core.Call(ctx, c, func(ctx context.Context) (int64, error) {
		return writeScripts.Force.Run(ctx, c.Redis(), k.all, core.ForceArgs(k.rch, k.wch)...).Int64()
	}, nil)
	return n == 1, err
}

// readState runs state.lua for owner.
func readState(ctx context.Context, c *lockkit.Client, k keys, owner string) (State, error) {
	w, r := holds(owner)
	res, err := core.Call(ctx, c, func(ctx context.Context) ([]int64, error) {
		return stateScript.Run(ctx, c.Redis(), k.all, w, r).Int64Slice()
	}, nil)
	if err == nil && (len(res) != 6 || res[0] < 0 || res[0] > 2) {
		err = fmt.Errorf("%w: %v", core.ErrReply, res)
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
