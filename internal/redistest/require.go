package redistest

import (
	"os"
	"os/exec"
	"testing"
)

// requireEnv names the environment variable that turns a missing
// redis-server from a skipped test into a failed one when it is "1".
const requireEnv = "LOCKKIT_REQUIRE_REDIS"

// requireRedis returns the path of redis-server. When it is not on PATH it
// skips the test, or fails it when LOCKKIT_REQUIRE_REDIS is "1", so that CI
// cannot silently skip the tests that need a real server.
func requireRedis(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err == nil {
		return bin
	}
	msg := "redistest: redis-server not found on PATH; install Redis 7 or later " +
		"(e.g. `apt-get install redis-server` or `brew install redis`) to run this test"
	if os.Getenv(requireEnv) == "1" {
		t.Fatalf("%s (%s=1 makes this a failure)", msg, requireEnv)
	}
	t.Skipf("%s; set %s=1 to fail instead of skipping", msg, requireEnv)
	return ""
}
