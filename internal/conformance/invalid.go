package conformance

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

// testInvalid checks that bad input of every kind is ErrInvalid naming the
// problem, with nothing sent to Redis and no panic.
func testInvalid(t *testing.T, k Kind) {
	lc, rc := redistest.Silent(t)
	long := strings.Repeat("n", 2000)
	tests := []struct {
		name string
		lock lockkit.Locker
		want string // in the error
	}{
		{"nil client", k.New(nil, "x"), "client"},
		{"closed-over invalid client", k.New(lockkit.New(nil), "x"), "client"},
		{"empty name", k.New(lc, ""), "name"},
		{"long name", k.New(lc, long), "name"},
		{"64 KiB name", k.New(lc, strings.Repeat("}", 64<<10)), "name"},
		{"nil option", k.New(lc, "x", nil), "nil"},
		{"zero lease", k.New(lc, "x", lockkit.WithLease(0)), "WithLease"},
		{"sub-ms lease", k.New(lc, "x", lockkit.WithLease(500*time.Microsecond)), "WithLease"},
		{"huge lease", k.New(lc, "x", lockkit.WithLease(100*365*24*time.Hour)), "WithLease"},
		{"tiny watchdog timeout", k.New(lc, "x", lockkit.WithWatchdogTimeout(time.Millisecond)), "WithWatchdogTimeout"},
		{"empty owner", k.New(lc, "x", lockkit.WithOwner("")), "WithOwner"},
		{"reserved owner", k.New(lc, "x", lockkit.WithOwner(":x")), "WithOwner"},
		{"empty prefix", k.New(lc, "x", lockkit.WithPrefix("")), "WithPrefix"},
		{"brace in prefix", k.New(lc, "x", lockkit.WithPrefix("a{b")), "WithPrefix"},
		{"owner as a Client default", k.New(lockkit.New(rc, lockkit.WithOwner("o")), "x"), "WithOwner"},
	}
	if k.Zero != nil {
		for _, z := range k.Zero() {
			tests = append(tests, struct {
				name string
				lock lockkit.Locker
				want string
			}{"not made by New", z, "New"})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantInvalid(t, tt.lock, tt.want)
		})
	}
	t.Run("nil ctx", func(t *testing.T) {
		l := k.New(lc, "x")
		//lint:ignore SA1012 a nil ctx is the input under test
		if err := l.Lock(nil); !isInvalid(err, "nil") { //nolint:staticcheck
			t.Fatalf("Lock(nil) = %v, want ErrInvalid", err)
		}
		//lint:ignore SA1012 a nil ctx is the input under test
		if _, err := l.TryLock(nil); !isInvalid(err, "nil") { //nolint:staticcheck
			t.Fatalf("TryLock(nil) = %v, want ErrInvalid", err)
		}
		//lint:ignore SA1012 a nil ctx is the input under test
		if err := l.Unlock(nil); !isInvalid(err, "nil") { //nolint:staticcheck
			t.Fatalf("Unlock(nil) = %v, want ErrInvalid", err)
		}
	})
}

func isInvalid(err error, want string) bool {
	return err != nil && errors.Is(err, lockkit.ErrInvalid) && strings.Contains(err.Error(), want)
}

func wantInvalid(t *testing.T, l lockkit.Locker, want string) {
	t.Helper()
	c := context.Background()
	if err := l.Lock(c); !isInvalid(err, want) {
		t.Errorf("Lock = %v, want ErrInvalid mentioning %q", err, want)
	}
	if ok, err := l.TryLock(c); ok || !isInvalid(err, want) {
		t.Errorf("TryLock = %v, %v; want ErrInvalid mentioning %q", ok, err, want)
	}
	if err := l.Unlock(c); !isInvalid(err, want) {
		t.Errorf("Unlock = %v, want ErrInvalid mentioning %q", err, want)
	}
	_ = l.Name()
	if tk, ok := l.(tokener); ok && tk.Token() != 0 {
		t.Errorf("Token = %d, want 0", tk.Token())
	}
	if lo, ok := l.(loser); ok && lo.Lost() != nil {
		t.Error("Lost is not nil")
	}
}
