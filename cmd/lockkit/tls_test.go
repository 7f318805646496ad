package main

import (
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkit/lockkit/internal/redistest"
)

// TestConnect_tls turns TLS on in a running server (a port of its own)
// and reads a lock through it: with --cacert, with a rediss:// URL, and
// with --insecure; without the CA the certificate is refused.
func TestConnect_tls(t *testing.T) {
	s := redistest.StartServer(t)
	ctx := redistest.Ctx(t, 10*time.Second)
	certFile, keyFile := selfSigned(t, t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsPort := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	admin := s.Client(t)
	if err := admin.ConfigSet(ctx, "tls-cert-file", certFile).Err(); err != nil {
		t.Skipf("redis-server without TLS support: %v", err)
	}
	for _, kv := range [][2]string{{"tls-key-file", keyFile}, {"tls-ca-cert-file", certFile}, {"tls-auth-clients", "no"}, {"tls-port", tlsPort}} {
		if err := admin.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatalf("CONFIG SET %s: %v", kv[0], err)
		}
	}
	c, prefix := prefixed(t, admin)
	m := holdReentrant(t, c)
	conn := []string{"-h", "127.0.0.1", "-p", tlsPort, "--tls"}

	for _, tc := range []struct {
		name string
		conn []string
	}{
		{"--cacert", append(slices.Clone(conn), "--cacert", certFile)},
		{"rediss URL", []string{"-u", "rediss://127.0.0.1:" + tlsPort, "--cacert", certFile}},
		{"--insecure", append(slices.Clone(conn), "--insecure")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli{conn: tc.conn}.wantShowsHeld(t, prefix, m)
		})
	}
	r := cli{conn: conn}.run(t, "show", "--prefix", prefix, m.Name())
	if r.code == 0 || !strings.Contains(r.stderr, "certificate") {
		t.Errorf("show over TLS without the CA: exit status %d, stderr %q; want a certificate error", r.code, r.stderr)
	}
	r = cli{conn: []string{"-h", "127.0.0.1", "-p", tlsPort, "--cacert", certFile}}.run(t, "show", m.Name())
	if r.code == 0 || !strings.Contains(r.stderr, "--cacert") {
		t.Errorf("--cacert without TLS: exit status %d, stderr %q; want an error naming --cacert", r.code, r.stderr)
	}
}
