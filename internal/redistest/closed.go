package redistest

import "slices"

// Closed reports whether ch is closed. It never blocks, and ch must be one
// that is only ever closed, never sent on.
func Closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// AnyClosed reports whether any of chs is closed, as the lost signal of a
// hold is once the hold is gone. It never blocks.
func AnyClosed(chs []<-chan struct{}) bool { return slices.ContainsFunc(chs, Closed) }
