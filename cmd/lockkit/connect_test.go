package main

import (
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit"
	"github.com/lockkit/lockkit/internal/redistest"
	"github.com/lockkit/lockkit/reentrant"
)

// holdReentrant takes a reentrant lock of c twice as "owner" and returns
// it.
func holdReentrant(t *testing.T, c *lockkit.Client) *reentrant.Mutex {
	t.Helper()
	m := reentrant.New(c, redistest.Unique(t), lockkit.WithOwner("owner"))
	redistest.MustLock(t, m)
	redistest.MustLock(t, m)
	return m
}

// wantHeld fails the test unless l shows m held twice by "owner" with m's
// token.
func wantHeld(t *testing.T, l *Lock, m *reentrant.Mutex) {
	t.Helper()
	if l.Name != m.Name() || l.Kind != "reentrant" || !l.Held || l.Mode != "exclusive" {
		t.Errorf("show %s: name %q kind %q held %v mode %q, want a held reentrant lock", m.Name(), l.Name, l.Kind, l.Held, l.Mode)
	}
	if got, want := holderLines(l.Holders), []string{"owner exclusive 2 " + itoa(m.Token())}; !slices.Equal(got, want) {
		t.Errorf("show %s: holders %q, want %q", m.Name(), got, want)
	}
	if l.Fence != m.Token() {
		t.Errorf("show %s: fence %d, want the token %d", m.Name(), l.Fence, m.Token())
	}
}

func TestConnect_password(t *testing.T) {
	s := redistest.StartServer(t)
	const password = "s3cret"
	// The server's own client stays authenticated: CONFIG SET requirepass
	// does not log out the connection that sends it.
	if err := s.Client(t).ConfigSet(redistest.Ctx(t, 5*time.Second), "requirepass", password).Err(); err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), Password: password})
	t.Cleanup(func() { _ = rc.Close() })
	c, prefix := prefixed(t, rc)
	m := holdReentrant(t, c)
	host, port, err := net.SplitHostPort(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"-h", host, "-p", port}

	var l Lock
	cli{conn: append(conn, "-a", password)}.okJSON(t, &l, "show", "--prefix", prefix, m.Name())
	wantHeld(t, &l, m)
	cli{conn: []string{"-u", "redis://:" + password + "@" + s.Addr()}}.okJSON(t, &l, "show", "--prefix", prefix, m.Name())
	wantHeld(t, &l, m)

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
