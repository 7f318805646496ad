package notify_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/notify"
)

// renamer sends the commands named in from as a command the server does
// not have, as a server that renamed or disabled them answers; with
// unknownArg, it asks COMMAND INFO of such a command instead, as a server
// before Redis 7 answers for SSUBSCRIBE.
type renamer struct {
	from       map[string]bool
	unknownArg bool
}

func (r renamer) DialHook(next redis.DialHook) redis.DialHook { return next }
func (r renamer) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (r renamer) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		args := cmd.Args()
		if r.from[cmd.Name()] {
			args[0] = "no-such-command"
		}
		if r.unknownArg && cmd.Name() == "command" {
			args[2] = "no-such-command"
		}
		return next(ctx, cmd)
	}
}

// TestHasSharding_asks_COMMAND_then_INFO checks how a Notifier learns
// whether the server has sharded pub/sub: from COMMAND INFO, else from the
// version INFO reports, else it assumes so (as the scripts find it on
// Redis 7).
func TestHasSharding_asks_COMMAND_then_INFO(t *testing.T) {
	srv := redistest.StartServer(t)
	for _, tc := range []struct {
		name    string
		renamed map[string]bool
	}{
		{"COMMAND INFO", nil},
		{"INFO, without COMMAND", map[string]bool{"command": true}},
		{"assumed, without COMMAND and INFO", map[string]bool{"command": true, "info": true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := srv.Client(t)
			rc.AddHook(renamer{from: tc.renamed})
			ok, err := notify.HasSharding(redistest.Ctx(t, 5*time.Second), rc)
			if err != nil || !ok {
				t.Fatalf("HasSharding on redis-server 7 = %v, %v; want true", ok, err)
			}
		})
	}
	t.Run("a server without SSUBSCRIBE", func(t *testing.T) {
		rc := srv.Client(t)
		rc.AddHook(renamer{unknownArg: true})
		ok, err := notify.HasSharding(redistest.Ctx(t, 5*time.Second), rc)
		if err != nil || ok {
			t.Fatalf("HasSharding = %v, %v; want false", ok, err)
		}
	})
	t.Run("miniredis", func(t *testing.T) {
		_, rc := redistest.Mini(t)
		if _, err := notify.HasSharding(redistest.Ctx(t, 5*time.Second), rc); err != nil {
			t.Fatalf("HasSharding on miniredis: %v, want an answer", err)
		}
	})
}
