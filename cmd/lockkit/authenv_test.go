package main

import "testing"

// TestConnect_REDISCLI_AUTH_does_not_override_a_URLs_password checks that
// lockkit reads REDISCLI_AUTH as redis-cli does, as doc.go promises of
// its connection flags: only when no password was given, by -a or in the
// -u URL. A stale REDISCLI_AUTH left in the environment does not replace
// the password of the URL, and -a still replaces both.
func TestConnect_REDISCLI_AUTH_does_not_override_a_URLs_password(t *testing.T) {
	const password = "s3cret"
	s, m, prefix := heldBehindPassword(t, password)
	stale := []string{"REDISCLI_AUTH=stale"}
	cli{conn: []string{"-u", "redis://:" + password + "@" + s.Addr()}, env: stale}.wantShowsHeld(t, prefix, m)
	cli{conn: []string{"-u", "redis://:wrong@" + s.Addr(), "-a", password}, env: stale}.wantShowsHeld(t, prefix, m)
}
