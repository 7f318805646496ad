package internal

import "sync"

// LostSignal is the lost signal of one hold: a channel closed once, when
// the hold is found lost, and the ErrLost it was lost with.
type LostSignal struct {
	ch   chan struct{}
	once sync.Once
	err  error
}

// NewLostSignal returns a signal that has not fired.
func NewLostSignal() *LostSignal { return &LostSignal{ch: make(chan struct{})} }

// Lose marks the hold on lock name lost with cause (nil when it simply
// vanished) and closes the channel. It is idempotent.
func (s *LostSignal) Lose(name string, cause error) {
	s.once.Do(func() {
		s.err = Lost(name, cause)
		close(s.ch)
	})
}

// Done returns the channel Lose closes.
func (s *LostSignal) Done() <-chan struct{} { return s.ch }

// Err returns ErrLost (with its cause) once the hold is lost, else nil.
func (s *LostSignal) Err() error {
	select {
	case <-s.ch:
		return s.err
	default:
		return nil
	}
}
