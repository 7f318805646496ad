package lua

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"
)

// Runner runs one script with fixed KEYS as Script.Run does: EVALSHA, and
// EVAL when the server answers NOSCRIPT. The EVALSHA's command, hash and
// KEYS are converted to any once, in NewRunner, instead of on every call:
// a lock runs its acquire and release scripts with the same KEYS every
// time.
type Runner struct {
	script *redis.Script
	keys   []string
	head   []any // "evalsha", the hash, len(keys), keys…
}

// NewRunner returns the runner of script with keys.
func NewRunner(script *redis.Script, keys []string) *Runner {
	head := make([]any, 0, 3+len(keys))
	head = append(head, "evalsha", script.Hash(), len(keys))
	for _, k := range keys {
		head = append(head, k)
	}
	return &Runner{script: script, keys: keys, head: head}
}

// Args returns a new command for Run, with room for n more ARGV: append
// them to it.
func (r *Runner) Args(n int) []any {
	return append(make([]any, 0, len(r.head)+n), r.head...)
}

// Run runs the script with cmd, made by Args with the ARGV appended, on
// c, and returns its reply.
func (r *Runner) Run(ctx context.Context, c redis.UniversalClient, cmd []any) *redis.Cmd {
	sha := redis.NewCmd(ctx, cmd...)
	if len(r.keys) > 0 {
		sha.SetFirstKeyPos(3) // a Cluster client sends it to the first key's node
	}
	_ = c.Process(ctx, sha)
	if err := sha.Err(); err != nil && (errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT")) {
		return r.script.Eval(ctx, c, r.keys, cmd[len(r.head):]...)
	}
	return sha
}
