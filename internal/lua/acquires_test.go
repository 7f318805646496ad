package lua_test

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestMutex_undo_finds_an_acquire_among_the_latest_of_a_shared_owner: an
// undo by attempt id (an owner id several values share) undoes that
// acquire whatever acquires of the owner came after it, once, as long as
// the hold lists it among its latest 16; a late copy of the undone
// acquire counts nothing.
func TestMutex_undo_finds_an_acquire_among_the_latest_of_a_shared_owner(t *testing.T) {
	redistest.ForEachBackend(t, redistest.SingleNode(), func(t *testing.T, c redis.UniversalClient) {
		l := newProcsLock(t, c)
		var token int64
		for i := 0; i <= 20; i++ {
			got := l.acquireAs("o", fmt.Sprint("a", i), "", "")
			if got[0] != int64(i+1) {
				t.Fatalf("acquire %d = %v, want count %d", i, got, i+1)
			}
			token = got[1]
		}
		// a5 to a20 are listed.
		for _, u := range []struct {
			id   string
			want int64
		}{{"a4", 0}, {"a5", 1}, {"a12", 1}, {"a12", 0}, {"a20", 1}} {
			if got := l.undo("o", u.id); got != u.want {
				t.Fatalf("undo of %s = %d, want %d", u.id, got, u.want)
			}
		}
		for _, id := range []string{"a12", "a19"} {
			if got := l.acquireAs("o", id, "", ""); got[0] != 18 || got[1] != token {
				t.Fatalf("acquire %s sent again = %v, want {18, %d}: counted once", id, got, token)
			}
		}
		if n, err := c.HGet(t.Context(), l.keys[0], "o").Int64(); err != nil || n != 18 {
			t.Fatalf("hold count = %d, %v; want 18", n, err)
		}
	})
}
