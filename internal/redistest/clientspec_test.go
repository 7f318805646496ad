package redistest

import (
	"context"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"
)

func TestClientSpec_round_trip(t *testing.T) {
	mr, c := Mini(t)
	spec := ClientSpec(c)
	if spec != "standalone="+mr.Addr() {
		t.Fatalf("ClientSpec = %q", spec)
	}
	back := SpecClient(spec)
	defer back.Close()
	if err := back.Set(context.Background(), "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, _ := mr.Get("k"); got != "v" {
		t.Fatalf("the client from the spec talks to another server: k = %q", got)
	}

	// No server needed: the cluster client only keeps the seed addresses.
	addrs := []string{"127.0.0.1:1", "127.0.0.1:2"}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	defer cc.Close()
	spec = ClientSpec(cc)
	if spec != "cluster=127.0.0.1:1,127.0.0.1:2" {
		t.Fatalf("ClientSpec = %q", spec)
	}
	backCluster, ok := SpecClient(spec).(*redis.ClusterClient)
	if !ok {
		t.Fatalf("SpecClient(%q) is not a cluster client", spec)
	}
	defer backCluster.Close()
	if got := backCluster.Options().Addrs; !slices.Equal(got, addrs) {
		t.Fatalf("cluster client from the spec has seeds %q, want %q", got, addrs)
	}
}
