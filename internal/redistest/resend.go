package redistest

import (
	"context"

	"github.com/redis/go-redis/v9"
)

// ResendScript is a go-redis hook that, once armed, sends the next script
// twice, as go-redis does when a read times out and it retries: the caller
// gets the second reply, and the hook disarms itself. A script that fails
// is not sent again and leaves the hook armed. Add it to a client with
// client.AddHook(h).
//
// A ResendScript must not be copied after first use. It is safe for
// concurrent use.
type ResendScript struct{ oneShot }

// ProcessHook sends the command and, if it is a script that succeeded and
// the hook is armed, disarms the hook and sends it again.
func (h *ResendScript) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && IsScript(cmd) && h.fire() {
			err = next(ctx, cmd)
		}
		return err
	}
}
