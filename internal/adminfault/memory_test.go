package adminfault_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// ballastChunk is the size of each value fill writes.
const ballastChunk = 4 << 10

// fill sets maxmemory on every server of e a little above what it uses,
// with policy, and writes keys without a TTL until that room is used up.
// Under noeviction it then lowers maxmemory to what the server uses less
// a few values, so that the memory stays full whatever a command or a
// client's buffers take or give back: every command that may grow memory
// is refused. Under an evicting policy it writes many times the room,
// which the server makes by evicting keys.
func (e *env) fill(t *testing.T, policy string) {
	t.Helper()
	e.Admin(t, "config", "set", "maxmemory-policy", policy)
	for _, c := range e.Admins {
		ctx := redistest.Ctx(t, callBound)
		const room = 64 << 10
		if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(usedMemory(t, c)+room, 10)).Err(); err != nil {
			t.Fatal(err)
		}
		value := strings.Repeat("x", ballastChunk)
		for i := 0; i*ballastChunk <= 16*room; i++ {
			err := c.Set(ctx, "ballast:"+strconv.Itoa(i), value, 0).Err()
			if err != nil && strings.HasPrefix(err.Error(), "OOM") {
				break
			}
			if err != nil {
				t.Fatalf("filling %s: %v", c.Options().Addr, err)
			}
		}
		if policy == "noeviction" {
			full := usedMemory(t, c) - 4*ballastChunk
			if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(full, 10)).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// unfill lifts maxmemory on every server of e again.
func (e *env) unfill(t *testing.T) {
	t.Helper()
	e.Admin(t, "config", "set", "maxmemory", "0")
}

// usedMemory returns the server's used_memory.
func usedMemory(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(redistest.Ctx(t, callBound), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no used_memory in INFO memory")
	return 0
}
