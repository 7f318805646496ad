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
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		for _, kind := range exclusiveKinds(rc) {
			t.Run(kind.name, func(t *testing.T) {
				f := newFixture(t, rc)
				holder := kind.make(f.lc, f.name, "holder")
				if err := holder.Lock(f.ctx); err != nil {
					t.Fatal(err)
				}
				waiter := kind.make(f.process(t), f.name, "waiter")
				got := waitingInBackground(t, "the waiter to wait", waiter.Lock, func() bool { return kind.waiting(t, f.prefix, f.name) })
				before := f.hash(t)

				// Without --force, and with --force but without --yes:
				// refused, nothing changed.
				if r := f.run(t, "unlock", "--prefix", f.prefix, f.name); r.code != exitUsage || !strings.Contains(r.stderr, "--force") {
					t.Errorf("unlock without --force: status %d, stderr %q; want %d and a word about --force", r.code, r.stderr, exitUsage)
				}
				r := f.run(t, "unlock", "--force", "--prefix", f.prefix, f.name)
				if r.code != exitFail || !strings.Contains(r.stderr, "refusing without --yes") || !strings.Contains(r.stderr, "holder") {
					t.Errorf("unlock --force without --yes: status %d, stderr %q; want %d and a refusal naming the holder", r.code, r.stderr, exitFail)
				}
				r = f.run(t, "-o", "json", "unlock", "--force", "--prefix", f.prefix, f.name)
				var res UnlockResult
				if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != exitFail {
					t.Errorf("unlock --force -o json without --yes: status %d, %v, stdout %q", r.code, err, r.stdout)
				}
				if res.Confirmed || res.Freed || res.Kind != kind.name || len(res.Holders) != 1 || res.Holders[0].Owner != "holder" {
					t.Errorf("unlock --force -o json without --yes printed %+v", res)
				}
				if after := f.hash(t); !maps.Equal(before, after) {
					t.Errorf("the refused unlocks changed the lock: %q, then %q", before, after)
				}
				select {
				case err := <-got:
					t.Fatalf("the waiter's Lock returned %v while the holder still held the lock", err)
				default:
				}

				// With --yes: freed, and the waiter gets the lock at once.
				f.okJSON(t, &res, "unlock", "--force", "--yes", "--prefix", f.prefix, f.name)
				if !res.Confirmed || !res.Freed || res.Kind != kind.name || len(res.Holders) != 1 || res.Holders[0].Token != holder.Token() {
					t.Errorf("unlock --force --yes printed %+v, want the holder's hold freed", res)
				}
				if err := redistest.Receive(t, got, wokenWithin, "the waiter to get the lock"); err != nil {
					t.Fatalf("the waiter's Lock: %v", err)
				}
				if waiter.Token() <= holder.Token() {
					t.Errorf("the waiter's token %d is not above the holder's %d", waiter.Token(), holder.Token())
				}
				redistest.WantErr(t, holder.Unlock(f.ctx), lockkit.ErrLost)
				if err := waiter.Unlock(f.ctx); err != nil {
					t.Fatal(err)
				}

				// A free lock: nothing to do.
				if out := f.ok(t, "unlock", "--force", "--yes", "--prefix", f.prefix, f.name); !strings.Contains(out, "not held") {
					t.Errorf("unlock of a free lock printed %q", out)
				}
			})
		}
	})
}

// wantForceRefused runs unlock --force on the fixture's lock, without and
// with --yes, and fails the test unless each run exits with exitFail,
// refusing with every one of says on stderr, and leaves the lock's hash
// as it was: what the command does to a kind that is not a lock.
func (f *fixture) wantForceRefused(t *testing.T, says ...string) {
	t.Helper()
	before := f.hash(t)
	for _, args := range [][]string{{"unlock", "--force"}, {"unlock", "--force", "--yes"}} {
		r := f.run(t, append(args, "--prefix", f.prefix, f.name)...)
		for _, s := range says {
			if r.code != exitFail || !strings.Contains(r.stderr, s) {
				t.Errorf("lockkit %q on %s: status %d, stderr %q; want %d and a refusal saying %q",
					args, f.name, r.code, r.stderr, exitFail, s)
			}
		}
	}
	if after := f.hash(t); !maps.Equal(before, after) {
		t.Errorf("the refused unlocks changed %s: %q, then %q", f.name, before, after)
	}
}

// TestUnlock_force_of_a_free_lock_exits_0_and_writes_nothing checks what
// doc.go says of unlock on a lock that is not held: with or without
// --yes it changes nothing and exits with status 0, saying so, and its
// JSON reports nothing freed; no key is created for the name.
func TestUnlock_force_of_a_free_lock_exits_0_and_writes_nothing(t *testing.T) {
	forEachBackend(t, func(t *testing.T, f *fixture) {
		for _, yes := range []bool{false, true} {
			args := []string{"unlock", "--force", "--prefix", f.prefix, f.name}
			if yes {
				args = append(args, "--yes")
			}
			if out := f.ok(t, args...); !strings.Contains(out, "not held") {
				t.Errorf("lockkit %q printed %q, want it to say the lock is not held", args, out)
			}
			var res UnlockResult
			f.okJSON(t, &res, args...)
			if res.Name != f.name || res.Kind != "" || len(res.Holders) != 0 || res.Freed || res.Confirmed != yes {
				t.Errorf("lockkit -o json %q printed %+v, want nothing freed, confirmed %v", args, res, yes)
			}
		}
		if h := f.hash(t); len(h) != 0 {
			t.Errorf("unlock of a free lock created its hash: %q", h)
		}
	})
}
