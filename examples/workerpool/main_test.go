package main

import (
	"strings"
	"testing"

	"github.com/lockkit/lockkit/examples/internal/exampletest"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { exampletest.Main(m, main) }

// TestWorkerpool_keeps_the_total runs the program with its defaults (16
// workers, 25 transfers each, 4 accounts of 1000): its doc promises that
// concurrent transfers under the accounts' locks never lose an update, so
// the total it prints at the end is the one it started with.
func TestWorkerpool_keeps_the_total(t *testing.T) {
	exampletest.Run(t, func(t *testing.T, p *redistest.Child, _ *redistest.Server) {
		p.WaitLine(t, "4 accounts with 1000 each; 16 workers make 25 transfers each", redistest.Hang)
		if line := p.WaitLine(t, "400 transfers in ", redistest.Hang); !strings.HasSuffix(line, "; total 4000 (want 4000)") {
			t.Errorf("last line %q, want the total unchanged", line)
		}
	})
}
