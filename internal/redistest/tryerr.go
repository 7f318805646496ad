package redistest

import "context"

// TryErr turns a call that tries to take a lock and reports whether it
// did, such as TryLock or TryRLock of a given lock, into a call that
// returns an error only: nil when it took the lock, else the call's error
// (nil too when it was refused without one, the lock being held).
func TryErr(try func(context.Context) (bool, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		ok, err := try(ctx)
		if ok {
			return nil
		}
		return err
	}
}
