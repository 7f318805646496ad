package lockkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWithLogger_logs_a_lost_hold_at_Error: nothing is logged while all
// goes well; a hold whose key vanishes is logged at Error with the lock's
// name and owner.
func TestWithLogger_logs_a_lost_hold_at_Error(t *testing.T) {
	rc := redistest.StartServer(t).Client(t)
	var out syncBuffer
	lc := redistest.Lockkit(t, rc, lockkit.WithLogger(slog.New(slog.NewJSONHandler(&out, nil))))
	name := redistest.Unique(t)
	m := reentrant.New(lc, name, lockkit.WithWatchdogTimeout(300*time.Millisecond), lockkit.WithOwner("job-7"))
	redistest.MustLock(t, m)
	redistest.MustUnlock(t, m)
	redistest.MustLock(t, m)
	if s := out.String(); s != "" {
		t.Fatalf("logged while all went well: %s", s)
	}
	if err := rc.Del(context.Background(), "lockkit:{"+name+"}").Err(); err != nil {
		t.Fatal(err)
	}
	redistest.Receive(t, m.Lost(), 10*time.Second, "the lost signal")
	redistest.Eventually(t, 10*time.Second, "the loss to be logged", func() bool { return out.String() != "" })
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.SplitN(out.String(), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	if rec["level"] != "ERROR" || rec["name"] != name || rec["owner"] != "job-7" || rec["kind"] != "reentrant" {
		t.Fatalf("log record %v; want ERROR with the lock's kind, name and owner", rec)
	}
	redistest.WantErr(t, m.Unlock(context.Background()), lockkit.ErrLost)
}

func TestWithLogger_is_a_Client_option(t *testing.T) {
	_, rc := redistest.Mini(t)
	lc := redistest.Lockkit(t, rc)
	m := reentrant.New(lc, "x", lockkit.WithLogger(slog.Default()))
	redistest.WantErr(t, m.Lock(context.Background()), lockkit.ErrInvalid)
	if err := lockkit.New(rc, lockkit.WithLogger(nil)).Err(); err == nil {
		t.Fatal("New with a nil logger: no error")
	}
}
