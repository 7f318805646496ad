package main

import (
	"os"
	"testing"

	"github.com/lockkit/lockkit/internal/redistest"
)

// asLockkit is set in the environment of the processes the tests start:
// the test binary then runs as the lockkit command (main) instead of
// running tests, so every test drives the real program, its flags, output
// and exit status, as a separate process.
const asLockkit = "LOCKKIT_CMD_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asLockkit) == "1" {
		main() // exits
	}
	redistest.Main(m, nil)
}
