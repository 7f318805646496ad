package reentrant_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// isRelease reports whether cmd runs the hash lock's release script by its
// hash, as a lock does once the script is loaded.
func isRelease(cmd redis.Cmder) bool {
	args := cmd.Args()
	return cmd.Name() == "evalsha" && len(args) > 1 && args[1] == lua.Mutex.Release.Hash()
}

// loseLoadedHold has holder, a Mutex of lc, take its lock (a first time
// to load the scripts, released at once), calls arm, deletes the lock's
// key through c with ctx and has lc's watchdog check the hold, which it
// finds lost then. It returns the lost hold's token.
func loseLoadedHold(ctx context.Context, t *testing.T, c *redis.Client, lc *lockkit.Client, holder *reentrant.Mutex, arm func()) int64 {
	t.Helper()
	redistest.MustLock(t, holder) // the scripts are loaded
	redistest.MustUnlock(t, holder)
	redistest.MustLock(t, holder)
	lost := holder.Token()
	arm()
	if err := c.Del(ctx, "lockkit:{"+holder.Name()+"}").Err(); err != nil {
		t.Fatal(err)
	}
	lc.Watchdog().Check()
	return lost
}

// TestLocalHandoff_TryLock_of_another_Mutex_waits_for_a_lost_hold_to_be_given_back:
// the process's hold is lost (its key vanished and the watchdog said so)
// while a Mutex holds it and never calls again; the process takes the
// local lock back from it and gives the lost hold back in Redis, and that
// release is slow to be answered. A TryLock of another Mutex of the
// process meanwhile, when no Mutex holds or waits, does not fail for want
// of a holder that is gone: it waits for the give-back and takes the free
// lock, with a fresh token. The lost holder's Unlock reports the loss.
func TestLocalHandoff_TryLock_of_another_Mutex_waits_for_a_lost_hold_to_be_given_back(t *testing.T) {
	slow := &redistest.Silence{Match: isRelease, Max: 5 * time.Second}
	_, c, lc, name := hookedProcess(t, slow)
	ctx := redistest.Ctx(t, redistest.Hang)
	opts := []lockkit.Option{handoff, lockkit.WithWatchdogTimeout(time.Minute)}
	holder, other := reentrant.New(lc, name, opts...), reentrant.New(lc, name, opts...)
	lost := loseLoadedHold(ctx, t, c, lc, holder, slow.On)
	redistest.Receive(t, holder.Lost(), 10*time.Second, "the holder's lost signal")
	redistest.Eventually(t, 10*time.Second, "the lost hold's release to be sent", func() bool { return slow.Held() == 1 })
	got := make(chan bool, 1)
	go func() {
		ok, err := other.TryLock(ctx)
		if err != nil {
			t.Errorf("TryLock while the lost hold is given back: %v", err)
		}
		got <- ok
	}()
	select {
	case ok := <-got:
		t.Fatalf("TryLock returned %v before the lost hold was given back; want it to wait", ok)
	case <-time.After(50 * time.Millisecond): // the release stays held up meanwhile
	}
	slow.Off()
	if !redistest.Receive(t, got, 10*time.Second, "TryLock once the lost hold is given back") {
		t.Fatal("TryLock once the lost hold was given back, no Mutex holding or waiting = false; want true")
	}
	if other.Token() <= lost {
		t.Errorf("the TryLock's token %d after the lost hold's %d: want a larger one", other.Token(), lost)
	}
	redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
	redistest.MustUnlock(t, other)
	redistest.AssertClean(t, c, name)
}
