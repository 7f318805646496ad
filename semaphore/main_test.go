package semaphore_test

import (
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) {
	redistest.Main(m, redistest.Children{"holder": holderChild})
}

// hang bounds every wait that must end; reaching it means the code hangs.
const hang = 30 * time.Second
