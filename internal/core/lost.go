package core

import "sync"

// LostSignal is a hold's lost signal: a channel closed once, when the hold
// is found lost, and the ErrLost it was lost with. The zero value is not
// ready: its channel is made with it (see NewHold).
type LostSignal struct {
	once sync.Once
	ch   chan struct{} // closed once, when the hold is found lost
	err  error         // ErrLost with its cause; written before ch is closed
}

// Lose marks the hold on lock name lost with cause (nil when it simply
// vanished) and closes the channel. It is idempotent: it reports whether
// this call did it.
func (s *LostSignal) Lose(name string, cause error) bool {
	fired := false
	s.once.Do(func() {
		s.err = Lost(name, cause)
		close(s.ch)
		fired = true
	})
	return fired
}

// loseWith is Lose with the error itself, already matching ErrLost.
func (s *LostSignal) loseWith(err error) bool {
	fired := false
	s.once.Do(func() {
		s.err = err
		close(s.ch)
		fired = true
	})
	return fired
}

// Done returns a channel that is closed when the hold is found lost.
// Nothing is ever sent on it.
func (s *LostSignal) Done() <-chan struct{} { return s.ch }

// Err returns an error matching ErrLost (with its cause) once the hold is
// lost, and nil before.
func (s *LostSignal) Err() error {
	select {
	case <-s.ch:
		return s.err
	default:
		return nil
	}
}
