package redistest

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// recorder is a testing.TB that records the failures a helper reports
// instead of failing the test. Fatal and FailNow end the calling goroutine,
// as they do in a real test; everything else (Cleanup, TempDir, Name, ...)
// goes to the real test it wraps.
type recorder struct {
	testing.TB

	mu     sync.Mutex
	msgs   []string
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Fail() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) FailNow() {
	r.Fail()
	runtime.Goexit()
}

func (r *recorder) Errorf(format string, args ...any) { r.record(fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.record(fmt.Sprint(args...)) }

func (r *recorder) Fatalf(format string, args ...any) {
	r.record(fmt.Sprintf(format, args...))
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.record(fmt.Sprint(args...))
	runtime.Goexit()
}

func (r *recorder) record(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.msgs = append(r.msgs, msg)
}

// failures runs f with a recorder wrapping t, on a goroutine of its own so
// that a Fatal ends only f, and returns the failure messages f reported,
// joined by newlines: "" if it reported none.
func failures(t *testing.T, f func(tb testing.TB)) string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed && len(r.msgs) == 0 {
		return "failed without a message"
	}
	return strings.Join(r.msgs, "\n")
}

// wantFailure fails t unless f reports a failure that contains every one
// of parts.
func wantFailure(t *testing.T, f func(tb testing.TB), parts ...string) {
	t.Helper()
	got := failures(t, f)
	if got == "" {
		t.Fatalf("no failure reported; want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(got, p) {
			t.Fatalf("failure %q does not contain %q", got, p)
		}
	}
}

// wantNoFailure fails t if f reports a failure.
func wantNoFailure(t *testing.T, f func(tb testing.TB)) {
	t.Helper()
	if got := failures(t, f); got != "" {
		t.Fatalf("unexpected failure: %s", got)
	}
}
