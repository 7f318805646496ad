package lockkit_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
	"github.com/lockkit/lockkit/fair"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/latch"
	"github.com/lockkit/lockkit/reentrant"
	"github.com/lockkit/lockkit/rwlock"
	"github.com/lockkit/lockkit/semaphore"
)

// TestErrWrongKind_message_quotes_the_name_and_carries_none_of_its_raw_bytes
// checks that the ErrWrongKind of every kind on a name held by another
// kind names it quoted, as every other error does, and carries none of
// its bytes raw: a name with a terminal escape, a newline or bytes that
// are not UTF-8 must not put them in a log line.
func TestErrWrongKind_message_quotes_the_name_and_carries_none_of_its_raw_bytes(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		c := redistest.Lockkit(t, rc)
		ctx := redistest.Ctx(t, redistest.Hang)
		name := "esc\x1b[31m new\nline \xff " + redistest.Unique(t)
		redistest.MustLock(t, fair.New(c, name))
		for op, call := range map[string]func(context.Context) error{
			"reentrant TryLock": func(ctx context.Context) error { _, err := reentrant.New(c, name).TryLock(ctx); return err },
			"rwlock TryRLock":   func(ctx context.Context) error { _, err := rwlock.New(c, name).TryRLock(ctx); return err },
			"semaphore TryAcquire": func(ctx context.Context) error {
				_, err := semaphore.New(c, name, 2).TryAcquire(ctx, 1)
				return err
			},
			"latch CountDown":   func(ctx context.Context) error { _, err := latch.New(c, name, 2).CountDown(ctx); return err },
			"election Campaign": func(ctx context.Context) error { _, err := election.New(c, name).Campaign(ctx, "v"); return err },
		} {
			err := call(ctx)
			if !errors.Is(err, lockkit.ErrWrongKind) {
				t.Errorf("%s = %v, want ErrWrongKind", op, err)
				continue
			}
			msg := err.Error()
			if !utf8.ValidString(msg) || strings.ContainsFunc(msg, unicode.IsControl) {
				t.Errorf("%s: the message %q carries bytes of the name raw", op, msg)
			}
			if !strings.Contains(msg, strconv.Quote(name)) {
				t.Errorf("%s: the message %q does not name %q", op, msg, name)
			}
		}
	})
}
