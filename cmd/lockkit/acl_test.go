package main

import (
	"net"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestConnect_user_REDISCLI_AUTH_and_database checks the connection flags
// doc.go lists beside -a: an ACL user (--user) whose password comes from
// REDISCLI_AUTH, a database number (-n), and that -n and --user override
// what a -u URL says. The lock lives in database 2 and only the ACL user
// may log in, so a command that missed any of them would not show it held.
func TestConnect_user_REDISCLI_AUTH_and_database(t *testing.T) {
	s := redistest.StartServer(t)
	ctx := redistest.Ctx(t, 10*time.Second)
	admin := s.Client(t)
	const user, password = "ops", "s3cret"
	if err := admin.Do(ctx, "ACL", "SETUSER", user, "on", ">"+password, "~*", "&*", "+@all").Err(); err != nil {
		t.Fatal(err)
	}
	if err := admin.Do(ctx, "ACL", "SETUSER", "default", "off").Err(); err != nil {
		t.Fatal(err)
	}
	m, prefix := holdVia(t, &redis.Options{Addr: s.Addr(), Username: user, Password: password, DB: 2})
	host, port, err := net.SplitHostPort(s.Addr())
	if err != nil {
		t.Fatal(err)
	}

	for _, conn := range []cli{
		{conn: []string{"-h", host, "-p", port, "--user", user, "-n", "2"}, env: []string{"REDISCLI_AUTH=" + password}},
		{conn: []string{"-u", "redis://" + user + ":" + password + "@" + s.Addr() + "/2"}},
		{conn: []string{"-u", "redis://nobody:" + password + "@" + s.Addr() + "/0", "--user", user, "-n", "2"}},
	} {
		conn.wantShowsHeld(t, prefix, m)
	}
}

// TestConnect_n_0_overrides_the_database_of_a_URL checks that -n given
// with -u overrides the URL's database also when it is 0, as doc.go says
// of every flag given beside a URL: a URL kept in a config file names
// database 3, and the lock lives in database 0.
func TestConnect_n_0_overrides_the_database_of_a_URL(t *testing.T) {
	s := redistest.StartServer(t)
	m, prefix := holdVia(t, &redis.Options{Addr: s.Addr()})
	conn := cli{conn: []string{"-u", "redis://" + s.Addr() + "/3", "-n", "0"}}
	conn.wantShowsHeld(t, prefix, m)
}
