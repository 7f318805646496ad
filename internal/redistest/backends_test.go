package redistest

import (
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
			if err := c.Ping(Ctx(t, waitTimeout)).Err(); err != nil {
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
	if !slices.Contains(names, "miniredis") || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("ran on %q; want each backend once", names)
	}
	for _, name := range names {
		if !slices.Contains([]string{"cluster", "miniredis", "standalone"}, name) {
			t.Fatalf("unknown backend %q", name)
		}
	}
}

func TestMiniFor_finds_the_server_behind_a_Mini_client_only(t *testing.T) {
	mr, c := Mini(t)
	if got, ok := MiniFor(c); !ok || got != mr {
		t.Fatalf("MiniFor = %v, %v; want the server Mini started", got, ok)
	}
	// The clock it moves is the one the client's commands see.
	ctx := Ctx(t, waitTimeout)
	if err := c.Set(ctx, "k", "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	got, _ := MiniFor(c)
	got.FastForward(time.Minute)
	if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("EXISTS k after moving the clock past its TTL = %d, %v; want 0", n, err)
	}

	other := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer other.Close()
	if _, ok := MiniFor(other); ok {
		t.Fatal("MiniFor found a server for a client Mini did not return")
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{mr.Addr()}})
	defer cc.Close()
	if _, ok := MiniFor(cc); ok {
		t.Fatal("MiniFor found a server for a cluster client")
	}
}
