package semaphore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/semaphore"
)

// holderChild is a child process that holds permits. Its arguments: the
// Redis (redistest.ClientSpec), the semaphore's name, its permits and the
// watchdog timeout in ms. It prints "ready"; on the line "acquire N" it
// acquires N permits and prints "held TOKEN"; on "release" it releases
// them and prints "released". It exits at the end of its input.
func holderChild(args []string) {
	c, _, done := redistest.ChildLockkit(args[0])
	defer done()
	permits := redistest.ChildAtoi(args[2], "permits")
	ms := redistest.ChildAtoi(args[3], "watchdog timeout")
	s := semaphore.New(c, args[1], permits, lockkit.WithWatchdogTimeout(time.Duration(ms)*time.Millisecond))
	ctx := context.Background()
	var held []*semaphore.Permits
	redistest.ChildPrintf("ready")
	for line := range redistest.ChildLines() {
		switch {
		case strings.HasPrefix(line, "acquire "):
			n := redistest.ChildAtoi(strings.TrimPrefix(line, "acquire "), "acquire")
			p, err := s.Acquire(ctx, n)
			if err != nil {
				redistest.ChildFatalf("Acquire: %v", err)
			}
			held = append(held, p)
			redistest.ChildPrintf("held %d", p.Token())
		case line == "release":
			for _, p := range held {
				if err := p.Release(ctx); err != nil {
					redistest.ChildFatalf("Release: %v", err)
				}
			}
			held = nil
			redistest.ChildPrintf("released")
		}
	}
}

// TestAcquire_holder_killed_frees_its_permits has a process take both
// permits of a semaphore of 2 (one hold of 1, one of 1) with a 1 s lease
// and kills it with SIGKILL while the test waits for 2 permits: the wait
// ends once the dead holds' leases have run out, with a larger token,
// and the dead holds are gone from Holders.
func TestAcquire_holder_killed_frees_its_permits(t *testing.T) {
	redistest.ForEachBackend(t, redistest.RealServers(), func(t *testing.T, rc redis.UniversalClient) {
		ctx := redistest.Ctx(t, redistest.Hang)
		name := redistest.Unique(t)
		kid := redistest.StartChild(t, "holder", redistest.ClientSpec(rc), name, "2", "1000")
		kid.WaitLine(t, "ready", redistest.Hang)
		var last int64
		for range 2 {
			kid.Send(t, "acquire 1")
			last = kid.WaitInt(t, "held ", redistest.Hang)
		}
		c := redistest.Lockkit(t, rc)
		s := semaphore.New(c, name, 2)
		got := make(chan *semaphore.Permits, 1)
		acquireTo(ctx, t, s, 2, got)
		waitQueued(t, rc, name, 1)
		kid.Kill(t)
		p := served(t, got, "the permits of the killed holder")
		if p.Token() <= last {
			t.Fatalf("token %d after the dead holder's %d", p.Token(), last)
		}
		hs, err := s.Holders(ctx)
		if err != nil || len(hs) != 1 || hs[0].Permits != 2 || hs[0].Token != p.Token() {
			t.Fatalf("Holders = %+v, %v; want only the new hold of 2", hs, err)
		}
		if err := p.Release(ctx); err != nil {
			t.Fatal(err)
		}
		redistest.AssertClean(t, rc, name)
	})
}
