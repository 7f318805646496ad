//go:build !unix

package redistest

import "time"

// processCPU cannot tell this process's CPU time here.
func processCPU() (time.Duration, bool) { return 0, false }
