package redistest

import (
	"context"
	"path"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestForEachBackend_runs_f_on_each_backend(t *testing.T) {
	var (
		mu    sync.Mutex
		names []string
	)
	t.Run("group", func(t *testing.T) {
		ForEachBackend(t, Backends(), func(t *testing.T, c redis.UniversalClient) {
			if err := c.Ping(Ctx(t, 10*time.Second)).Err(); err != nil {
				t.Fatalf("PING: %v", err)
			}
			_, isMini := MiniFor(c)
			_, isCluster := c.(*redis.ClusterClient)
			backend := path.Base(t.Name())
			if isMini != (backend == "miniredis") || isCluster != (backend == "cluster") {
				t.Fatalf("backend %s: client %T, miniredis %v", backend, c, isMini)
			}
			mu.Lock()
			names = append(names, backend)
			mu.Unlock()
		})
	})
	// The real backends skip without redis-server.
	slices.Sort(names)
	if !slices.Contains(names, "miniredis") || len(slices.Compact(names)) != len(names) {
		t.Fatalf("ran on %q; want each backend once", names)
	}
	for _, name := range names {
		if !slices.Contains([]string{"cluster", "miniredis", "standalone"}, name) {
			t.Fatalf("unknown backend %q", name)
		}
	}
}

func TestMiniFor_finds_the_server_behind_a_Mini_client(t *testing.T) {
	var c *redis.Client
	t.Run("inner", func(t *testing.T) {
		mr, mc := Mini(t)
		c = mc
		got, ok := MiniFor(c)
		if !ok || got.Addr() != mr.Addr() {
			t.Fatalf("MiniFor = %v, %v; want the server Mini started", got, ok)
		}
		other := redis.NewClient(&redis.Options{Addr: mr.Addr()})
		defer other.Close()
		if _, ok := MiniFor(other); ok {
			t.Fatal("MiniFor found a server for a client Mini did not return")
		}
	})
	if _, ok := MiniFor(c); ok {
		t.Fatal("MiniFor still finds the server after its test ended")
	}
}

func TestCountCommands_counts_what_the_client_sends(t *testing.T) {
	_, c := Mini(t)
	ctx := context.Background()
	if err := c.Set(ctx, "before", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	counter := CountCommands(c)
	if err := c.Set(ctx, "after", 1, 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n := counter.Total(); n != 1 {
		t.Fatalf("Total() = %d, want 1 (only the command sent after CountCommands)", n)
	}
}
