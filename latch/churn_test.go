package latch_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
)

// TestChurn_of_many_names_leaves_nothing_behind: a thousand latches, each
// awaited from two Clients by an Await given up while it sleeps and two
// that the last count-down wakes, leave the Clients keeping no channel or
// local entry and no goroutine, the server no subscriber, and no key but
// each latch's hash (PREFIX:{NAME}), which expires in its 24 h as
// documented.
func TestChurn_of_many_names_leaves_nothing_behind(t *testing.T) {
	srv := redistest.StartServer(t)
	rc := srv.Client(t)
	prefix := redistest.Unique(t)
	a := redistest.Lockkit(t, srv.Client(t), lockkit.WithPrefix(prefix))
	b := redistest.Lockkit(t, srv.Client(t), lockkit.WithPrefix(prefix))
	base := runtime.NumGoroutine()
	ctx := redistest.Ctx(t, time.Minute)
	for i := range 1000 {
		name := fmt.Sprintf("n%d", i)
		if _, err := latch.New(a, name, 2).CountDown(ctx); err != nil {
			t.Fatalf("CountDown: %v", err)
		}
		given, giveUp := context.WithCancel(ctx)
		gaveUp := awaitAsync(given, latch.New(b, name, 2))
		redistest.Eventually(t, 10*time.Second, "the Await waiting", func() bool { return b.Notifier().Channels() == 1 })
		giveUp()
		if err := <-gaveUp; err == nil {
			t.Fatal("Await whose ctx ended = nil")
		}
		wokenA, wokenB := awaitAsync(ctx, latch.New(a, name, 2)), awaitAsync(ctx, latch.New(b, name, 2))
		redistest.Eventually(t, 10*time.Second, "both Awaits waiting", func() bool {
			return a.Notifier().Channels() == 1 && b.Notifier().Channels() == 1
		})
		if _, err := latch.New(b, name, 2).CountDown(ctx); err != nil {
			t.Fatalf("CountDown: %v", err)
		}
		for _, woken := range []<-chan error{wokenA, wokenB} {
			if err := redistest.Receive(t, woken, 10*time.Second, "the Await the count-down opens"); err != nil {
				t.Fatalf("Await: %v", err)
			}
		}
	}
	redistest.Settled(t, base, a, b)
	redistest.NoSubscriptions(t, rc, prefix)
	redistest.KeysSettle(t, rc, prefix, func(key string, ttl time.Duration) bool {
		return !strings.Contains(key, "}:") && ttl > 0 && ttl <= latch.DefaultExpiry
	})
}
