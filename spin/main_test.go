package spin_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 20 * time.Second

// backends are the kinds of Redis the behaviour tests run on.
var backends = []redistest.Backend{redistest.MiniBackend, redistest.ServerBackend}
