package main

import (
	"net"
	"strings"
	"testing"
)

func TestConnect_password(t *testing.T) {
	const password = "s3cret"
	s, m, prefix := heldBehindPassword(t, password)
	host, port, err := net.SplitHostPort(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"-h", host, "-p", port}

	cli{conn: append(conn, "-a", password)}.wantShowsHeld(t, prefix, m)
	cli{conn: []string{"-u", "redis://:" + password + "@" + s.Addr()}}.wantShowsHeld(t, prefix, m)

	for _, tc := range []struct {
		name string
		conn []string
		want string
	}{
		{"none", conn, "NOAUTH"},
		{"wrong", append(conn, "-a", "wrong"), "WRONGPASS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cli{conn: tc.conn}.run(t, "show", "--prefix", prefix, m.Name())
			if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("show with password %s: exit status %d, stderr %q; want a failure naming %s", tc.name, r.code, r.stderr, tc.want)
			}
		})
	}
}
