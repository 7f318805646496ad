package lua_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/lua"
	"github.com/lockkit/lockkit/internal/redistest"
)

// names records the names of the script commands a client sends.
type names struct {
	mu   sync.Mutex
	sent []string
}

func (n *names) DialHook(next redis.DialHook) redis.DialHook { return next }

func (n *names) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if name := strings.ToLower(cmd.Name()); strings.HasPrefix(name, "eval") {
			n.mu.Lock()
			n.sent = append(n.sent, name)
			n.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

func (n *names) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// take returns the names recorded since the last call.
func (n *names) take() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	sent := n.sent
	n.sent = nil
	return sent
}

// TestRunner_runs_as_Script_Run: a Runner sends EVALSHA with its KEYS and
// the ARGV appended to Args, falls back to EVAL when the server does not
// know the script (first run, or after SCRIPT FLUSH), and returns the
// reply either way; a script error comes back as the command's error.
func TestRunner_runs_as_Script_Run(t *testing.T) {
	script := redis.NewScript(`
if ARGV[1] == 'fail' then return redis.error_reply('BOOM failed') end
return {KEYS[1], KEYS[2], ARGV[1], ARGV[2]}`)
	keys := []string{"run:{r}", "run:{r}:2"}
	redistest.ForEachBackend(t, redistest.Backends(), func(t *testing.T, c redis.UniversalClient) {
		sent := &names{}
		c.AddHook(sent)
		r := lua.NewRunner(script, keys)
		run := func(t *testing.T, want []string, argv ...any) {
			t.Helper()
			ctx := redistest.Ctx(t, 10*time.Second)
			cmd := append(r.Args(len(argv)), argv...)
			got, err := r.Run(ctx, c, cmd).StringSlice()
			if err != nil {
				t.Fatal(err)
			}
			if w := []string{keys[0], keys[1], argv[0].(string), "7"}; !slices.Equal(got, w) {
				t.Fatalf("reply %q, want %q", got, w)
			}
			if s := sent.take(); !slices.Equal(s, want) {
				t.Fatalf("sent %q, want %q", s, want)
			}
		}
		run(t, []string{"evalsha", "eval"}, "a", 7)
		run(t, []string{"evalsha"}, "b", 7)
		ctx := redistest.Ctx(t, 10*time.Second)
		flush := func(ctx context.Context, c redis.UniversalClient) error { return c.ScriptFlush(ctx).Err() }
		if cc, ok := c.(*redis.ClusterClient); ok {
			if err := cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return flush(ctx, m) }); err != nil {
				t.Fatal(err)
			}
		} else if err := flush(ctx, c); err != nil {
			t.Fatal(err)
		}
		run(t, []string{"evalsha", "eval"}, "c", 7)
		err := r.Run(ctx, c, append(r.Args(2), "fail", 7)).Err()
		if !redis.HasErrorPrefix(err, "BOOM") {
			t.Fatalf("error %v, want the script's BOOM", err)
		}
	})
}
