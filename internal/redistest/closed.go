package redistest

// AnyClosed reports whether any of chs is closed, as the lost signal of a
// hold is once the hold is gone. It never blocks.
func AnyClosed(chs []<-chan struct{}) bool {
	for _, ch := range chs {
		select {
		case <-ch:
			return true
		default:
		}
	}
	return false
}
