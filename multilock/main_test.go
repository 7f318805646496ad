package multilock_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 30 * time.Second

// lockKey is the Redis key of lock name under the default prefix.
func lockKey(name string) string { return "lockkit:{" + name + "}" }
