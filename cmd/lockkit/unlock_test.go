package main

import (
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// wokenWithin bounds how long a waiter may take to get a force-unlocked
// lock: far less than the 30 s lease whose end would also free it.
const wokenWithin = 10 * time.Second

func TestUnlock_force_needs_yes_then_frees_like_the_kind_and_wakes_a_waiter(t *testing.T) {
	redistest.ForEachBackend(t, backends, func(t *testing.T, rc redis.UniversalClient) {
		c := cliFor(t, rc)
		for _, kind := range exclusiveKinds(rc) {
			t.Run(kind.name, func(t *testing.T) {
				lc, prefix := prefixed(t, rc)
				ctx := redistest.Ctx(t, 30*time.Second)
				name := redistest.Unique(t)
				holder := kind.make(lc, name, "holder")
				if err := holder.Lock(ctx); err != nil {
					t.Fatal(err)
				}
				waiter := kind.make(redistest.Lockkit(t, rc, lockkit.WithPrefix(prefix)), name, "waiter")
				got := waitInBackground(t, waiter.Lock)
				redistest.Eventually(t, 10*time.Second, "the waiter to wait", func() bool { return kind.waiting(t, prefix, name) })
				state := func() map[string]string {
					h, err := rc.HGetAll(ctx, keys(prefix, name).Base).Result()
					if err != nil {
						t.Fatal(err)
					}
					return h
				}
				before := state()

				// Without --force, and with --force but without --yes:
				// refused, nothing changed.
				if r := c.run(t, "unlock", "--prefix", prefix, name); r.code != exitUsage || !strings.Contains(r.stderr, "--force") {
					t.Errorf("unlock without --force: status %d, stderr %q; want %d and a word about --force", r.code, r.stderr, exitUsage)
				}
				r := c.run(t, "unlock", "--force", "--prefix", prefix, name)
				if r.code != exitFail || !strings.Contains(r.stderr, "refusing without --yes") || !strings.Contains(r.stderr, "holder") {
					t.Errorf("unlock --force without --yes: status %d, stderr %q; want %d and a refusal naming the holder", r.code, r.stderr, exitFail)
				}
				r = c.run(t, "-o", "json", "unlock", "--force", "--prefix", prefix, name)
				var res UnlockResult
				if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != exitFail {
					t.Errorf("unlock --force -o json without --yes: status %d, %v, stdout %q", r.code, err, r.stdout)
				}
				if res.Confirmed || res.Freed || res.Kind != kind.name || len(res.Holders) != 1 || res.Holders[0].Owner != "holder" {
					t.Errorf("unlock --force -o json without --yes printed %+v", res)
				}
				if after := state(); !maps.Equal(before, after) {
					t.Errorf("the refused unlocks changed the lock: %q, then %q", before, after)
				}
				select {
				case err := <-got:
					t.Fatalf("the waiter's Lock returned %v while the holder still held the lock", err)
				default:
				}

				// With --yes: freed, and the waiter gets the lock at once.
				c.okJSON(t, &res, "unlock", "--force", "--yes", "--prefix", prefix, name)
				if !res.Confirmed || !res.Freed || res.Kind != kind.name || len(res.Holders) != 1 || res.Holders[0].Token != holder.Token() {
					t.Errorf("unlock --force --yes printed %+v, want the holder's hold freed", res)
				}
				if err := redistest.Receive(t, got, wokenWithin, "the waiter to get the lock"); err != nil {
					t.Fatalf("the waiter's Lock: %v", err)
				}
				if waiter.Token() <= holder.Token() {
					t.Errorf("the waiter's token %d is not above the holder's %d", waiter.Token(), holder.Token())
				}
				redistest.WantErr(t, holder.Unlock(ctx), lockkit.ErrLost)
				if err := waiter.Unlock(ctx); err != nil {
					t.Fatal(err)
				}

				// A free lock: nothing to do.
				if out := c.ok(t, "unlock", "--force", "--yes", "--prefix", prefix, name); !strings.Contains(out, "not held") {
					t.Errorf("unlock of a free lock printed %q", out)
				}
			})
		}
	})
}
