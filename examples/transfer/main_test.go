package main

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/examples/internal/exampletest"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestTransfer_keeps_the_total_and_cleans_up runs the program with
// transfers in both directions between the same accounts at once: the
// locks keep the total unchanged and opposite transfers from deadlocking
// (the program ends), and on a real server it leaves none of its keys
// behind (those remembering released tokens expire by themselves).
func TestTransfer_keeps_the_total_and_cleans_up(t *testing.T) {
	exampletest.Run(t, func(t *testing.T, p *redistest.Child, srv *redistest.Server) {
		p.WaitLine(t, "opening balances: alice=100 bob=100 carol=100 dave=100 (total 400)", redistest.Hang)
		p.WaitLine(t, "200 transfers by 8 workers", redistest.Hang)
		p.WaitLine(t, "total unchanged: 400", redistest.Hang)
		if srv == nil {
			return
		}
		p.Wait(t, redistest.Hang)
		rc := srv.Client(t)
		left := func() []string {
			keys, err := rc.Keys(redistest.Ctx(t, redistest.Hang), keyPrefix+":*").Result()
			if err != nil {
				t.Fatal(err)
			}
			return keys
		}
		for _, k := range left() {
			if !strings.Contains(k, ":released:") {
				t.Errorf("key %s left behind", k)
			}
		}
		redistest.Eventually(t, redistest.Hang, "the released tokens' keys to expire", func() bool { return len(left()) == 0 })
	}, "-transfers", "200", "-workers", "8")
}
