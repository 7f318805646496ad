// Package conformance holds the contract every exclusive lock kind of
// lockkit keeps, written once and run by each kind's tests:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Kind{Name: "reentrant", New: …})
//	}
//
// Each case runs on every backend the kind names (miniredis, a standalone
// redis-server, a three-master Cluster), one server per backend shared by
// the cases, each case on a lock name of its own. What a kind cannot do
// (a multi-lock has no fencing token, say) is left out by its capabilities,
// never skipped silently: the capabilities are interfaces the lock value
// implements.
package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// Kind describes the lock kind under test.
type Kind struct {
	// Name names the kind in subtests.
	Name string
	// New returns a new owner of the lock name made from c. Two values
	// from New with the same name are two owners of one lock.
	New func(c *lockkit.Client, name string, opts ...lockkit.Option) lockkit.Locker
	// Zero returns lock values not made by New: the zero value and a nil
	// pointer. Their every method must return ErrInvalid.
	Zero func() []lockkit.Locker
	// Backends are the kinds of Redis to run on; nil means all.
	Backends []redistest.Backend
}

// The capabilities a lock value may have.
type (
	tokener interface{ Token() int64 }
	loser   interface{ Lost() <-chan struct{} }
	counter interface {
		HoldCount(context.Context) (int, error)
	}
	forcer interface {
		ForceUnlock(context.Context) (bool, error)
	}
)

// env is one backend's server shared by the cases of a kind.
type env struct {
	k  Kind
	rc redis.UniversalClient
	lc *lockkit.Client
	// newRC returns another go-redis client of the same server, with
	// hooks added to it only.
	newRC func(t testing.TB, hooks ...redis.Hook) redis.UniversalClient
}

// lock returns a new owner of name on the env's shared Client.
func (e *env) lock(name string, opts ...lockkit.Option) lockkit.Locker {
	return e.k.New(e.lc, name, opts...)
}

// Run runs every case of the contract on k.
func Run(t *testing.T, k Kind) {
	backends := k.Backends
	if backends == nil {
		backends = redistest.Backends()
	}
	t.Run("invalid", func(t *testing.T) { testInvalid(t, k) })
	t.Run("token_increases_across_a_restart_that_lost_the_counter", func(t *testing.T) {
		t.Parallel()
		testRestart(t, k)
	})
	runCases(t, k, backends, cases())
}

// runCases runs each of cs on every one of backends, one server per
// backend shared by the cases.
func runCases(t *testing.T, k Kind, backends []redistest.Backend, cs []testCase) {
	for _, b := range backends {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			rc := b.Client(t)
			e := &env{k: k, rc: rc, lc: redistest.Lockkit(t, rc)}
			e.newRC = func(t testing.TB, hooks ...redis.Hook) redis.UniversalClient {
				c := redistest.SpecClient(redistest.ClientSpec(rc))
				t.Cleanup(func() { _ = c.Close() })
				for _, h := range hooks {
					c.AddHook(h)
				}
				return c
			}
			for _, c := range cs {
				t.Run(c.name, func(t *testing.T) {
					t.Parallel()
					c.run(t, e)
				})
			}
		})
	}
}

// testCase is one property of a contract.
type testCase struct {
	name string
	run  func(t *testing.T, e *env)
}

// cases returns the contract, one entry per property.
func cases() []testCase {
	return []testCase{
		{"reenters_same_owner", testReenter},
		{"other_owner_excluded_and_gets_ErrNotHeld", testOtherOwner},
		{"waiter_gets_lock_on_release", testWaiter},
		{"goroutines_exclude_each_other", testHammer},
		{"clients_exclude_each_other", testClients},
		{"token_strictly_increases", testToken},
		{"ctx_deadline_matches_both_errors", testDeadline},
		{"short_deadlines_match_both_errors", testShortDeadlines},
		{"odd_names_work", testOddNames},
		{"names_like_another_names_keys_are_locks_of_their_own", testLookalikeNames},
		{"one_name_under_different_prefixes_is_independent_locks", testPrefixes},
		{"fixed_lease_ends_and_reports_lost", testFixedLease},
		{"fixed_lease_holder_is_told_before_another_owner_takes_it", testFixedLeaseToldFirst},
		{"max_hold_ends_a_hold_never_released", testMaxHold},
		{"context_ends_with_the_hold", testContext},
		{"vanished_hold_is_reported_lost", testVanished},
		{"vanished_fixed_lease_hold_is_reported_lost_before_its_end", testVanishedFixedLease},
		{"lock_after_a_loss_takes_a_fresh_hold", testLockAfterLoss},
		{"partial_unlock_held_up_keeps_the_hold_renewed", testPartialUnlockHeldUp},
		{"unlock_retry_after_lost_reply_unlocks_once", testUnlockRetry},
		{"unlock_retry_after_a_new_lock_settles_the_lost_unlock", testUnlockRetryAfterLock},
		{"unlock_retry_after_a_renewal_reports_no_loss", testUnlockRetryAfterRenewal},
		{"unlock_in_doubt_never_retried_frees_the_lock", testUnlockInDoubtNeverRetried},
		{"lost_acquire_reply_leaves_no_stray_hold", testLostAcquire},
		{"acquire_sent_twice_takes_the_lock_once", testAcquireResent},
		{"acquire_held_up_past_its_undo_does_nothing", testAcquireHeldUp},
		{"acquire_held_up_while_its_undo_goes_unanswered_does_nothing", testAcquireHeldUpUndoUnanswered},
		{"force_unlock_frees_and_holder_gets_ErrLost", testForce},
		{"force_unlock_sent_twice_reports_the_hold_it_removed", testForceResent},
		{"queries_follow_the_hold", testQueries},
		{"with_owner_shares_the_hold", testWithOwner},
		{"with_owner_failed_lock_leaves_nothing_held", testWithOwnerLostAcquire},
		{"with_owner_undo_after_another_values_reentry_leaves_no_stray_count", testWithOwnerLateUndo},
		{"with_owner_unlock_retry_after_another_values_unlock_releases_once", testWithOwnerUnlockRetry},
		{"unlock_with_cancelled_ctx_releases", testCancelledUnlock},
		{"closed_client_reports_ErrClosed", testClosed},
		{"calls_return_within_ctx_against_a_silent_server", testSilentServer},
		{"a_call_queued_behind_a_held_up_one_returns_within_ctx", testQueuedBehindSilence},
	}
}

// timeouts of the calls the cases make: reaching one means a hang.
const (
	callTimeout = 10 * time.Second
	waitTimeout = 20 * time.Second
)

// Of returns the Kind called name whose lock type is *T, made by newLock:
// its values not made by New are the zero T and a nil *T.
func Of[T any, L interface {
	*T
	lockkit.Locker
}](name string, newLock func(*lockkit.Client, string, ...lockkit.Option) L) Kind {
	return Kind{
		Name: name,
		New: func(c *lockkit.Client, n string, opts ...lockkit.Option) lockkit.Locker {
			return newLock(c, n, opts...)
		},
		Zero: func() []lockkit.Locker { return []lockkit.Locker{L(new(T)), L(nil)} },
	}
}
