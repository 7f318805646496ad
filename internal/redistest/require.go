package redistest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// requireEnv names the environment variable that turns a missing
// redis-server or redis-cli from a skipped test into a failed one when it
// is set to "1".
const requireEnv = "LOCKKIT_REQUIRE_REDIS"

// Require skips the test unless redis-server and redis-cli are on PATH.
// When the environment variable LOCKKIT_REQUIRE_REDIS is "1" a missing
// binary fails the test instead, so that CI cannot silently skip the
// tests that need a real server.
func Require(t testing.TB) {
	t.Helper()
	if _, _, err := binaries(); err != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%v (%s=1 makes this a failure)", err, requireEnv)
		}
		t.Skipf("%v; set %s=1 to fail instead of skipping", err, requireEnv)
	}
}

// binaries resolves redis-server and redis-cli on PATH.
func binaries() (server, cli string, err error) {
	var missing []string
	server, err = exec.LookPath("redis-server")
	if err != nil {
		missing = append(missing, "redis-server")
	}
	cli, err = exec.LookPath("redis-cli")
	if err != nil {
		missing = append(missing, "redis-cli")
	}
	if len(missing) > 0 {
		return "", "", fmt.Errorf("redistest: %s not found on PATH; install Redis 7 or later "+
			"(e.g. `apt-get install redis-server`, which also provides redis-cli, "+
			"or `brew install redis`) to run this test", strings.Join(missing, " and "))
	}
	return server, cli, nil
}
