package lua_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestMutex_release_remembers_its_token_in_a_key_of_its_own checks that the
// release that ends a hold leaves one key, PREFIX:{NAME}:released:TOKEN,
// that expires with the window, and that a retry of that release answers
// 0 (done) while the key is there, also after another owner took the
// lock, which the retry leaves alone; once the key is gone, the retry
// answers -1 (not held).
func TestMutex_release_remembers_its_token_in_a_key_of_its_own(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		ctx := context.Background()
		l := newProcsLock(t, c)
		held := l.acquire("a", "", "")
		if n := l.releaseAs("a", held[1], "u1"); n != 0 {
			t.Fatalf("release = %d, want 0", n)
		}
		key := fmt.Sprint(l.keys[2], ":", held[1])
		if ttl := c.PTTL(ctx, key).Val(); ttl <= 0 || ttl > 10*time.Second {
			t.Fatalf("%s has TTL %v, want one of at most the 10 s window", key, ttl)
		}
		if n := c.Exists(ctx, l.keys[2]).Val(); n != 0 {
			t.Fatalf("%s exists; released tokens are kept in keys of their own", l.keys[2])
		}

		other := l.acquire("b", "", "")
		if n := l.releaseAs("a", held[1], "u1"); n != 0 {
			t.Fatalf("retried release = %d, want 0: it took effect", n)
		}
		if got := l.acquire("b", "", ""); got[0] != 2 || got[1] != other[1] {
			t.Fatalf("b re-enters with %v, want {2, %d}: the retry left b's hold alone", got, other[1])
		}

		if err := c.Del(ctx, key).Err(); err != nil {
			t.Fatal(err)
		}
		if n := l.releaseAs("a", held[1], "u1"); n != -1 {
			t.Fatalf("retried release after the window = %d, want -1", n)
		}
	})
}
