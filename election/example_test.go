package election_test

import (
	"context"
	"fmt"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/election"
)

// Replicas of a service elect the one that runs the scheduler: each
// campaigns, the winner works under its leadership's context, and resigns
// when it shuts down.
func Example() {
	ctx := context.Background()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	me := election.New(client, "scheduler")
	lead, err := me.Campaign(ctx, "replica-1")
	if err != nil {
		fmt.Println("campaign:", err)
		return
	}
	// Run the scheduler under lead.Context(): it ends if the leadership is
	// lost. Writes carry the term as a fencing token.
	fmt.Println("leading:", lead.Leader().Value, lead.Context().Err() == nil)

	who, _ := election.New(client, "scheduler").Leader(ctx)
	fmt.Println("leader seen by others:", who.Value, who.Term == lead.Leader().Term)

	_ = lead.Resign(ctx)
	who, _ = me.Leader(ctx)
	fmt.Println("after resigning:", who == election.Leader{})
	// Output:
	// leading: replica-1 true
	// leader seen by others: replica-1 true
	// after resigning: true
}

// An observer follows the leader: first who leads now, then each change.
func ExampleElection_Observe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, closeRedis := embeddedClient()
	defer closeRedis()

	changes, err := election.New(client, "scheduler").Observe(ctx)
	if err != nil {
		fmt.Println("observe:", err)
		return
	}
	fmt.Printf("now: %q\n", (<-changes).Value)
	lead, _ := election.New(client, "scheduler").Campaign(ctx, "replica-2")
	fmt.Printf("then: %q\n", (<-changes).Value)
	_ = lead.Resign(ctx)
	fmt.Printf("then: %q\n", (<-changes).Value)
	// Output:
	// now: ""
	// then: "replica-2"
	// then: ""
}

// embeddedClient returns a Client on a fresh embedded Redis (miniredis),
// as a real server would serve it, and the function that closes both.
func embeddedClient() (*lockkit.Client, func()) {
	mr, _ := miniredis.Run()
	client := lockkit.New(redis.NewClient(&redis.Options{Addr: mr.Addr()}))
	return client, func() { client.Close(); client.Redis().Close(); mr.Close() }
}
