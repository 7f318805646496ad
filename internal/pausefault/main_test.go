package pausefault_test

import (
	"testing"

	"github.com/lockkit/lockkit/internal/faultkit"
	"github.com/lockkit/lockkit/internal/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m, faultkit.Children(kinds())) }
