package spin_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, children()) }

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 20 * time.Second
