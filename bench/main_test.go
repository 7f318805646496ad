package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain runs a child of a cell when the test binary is re-executed with
// childFlag, as the benchmark re-executes its own binary; otherwise it runs
// the tests with goroutine leak detection.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == childFlag {
		os.Exit(runChild(os.Args[2]))
	}
	goleak.VerifyTestMain(m)
}

// requireRedis skips the test when redis-server is not on PATH, or fails it
// when LOCKKIT_REQUIRE_REDIS=1, as CI sets.
func requireRedis(t *testing.T) {
	t.Helper()
	if _, err := lookRedis(); err != nil {
		if os.Getenv("LOCKKIT_REQUIRE_REDIS") == "1" {
			t.Fatalf("redis-server is required (LOCKKIT_REQUIRE_REDIS=1): %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}
