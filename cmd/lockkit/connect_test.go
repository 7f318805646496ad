package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

func TestConnect_sentinel_finds_the_master(t *testing.T) {
	d := redistest.StartSentinel(t, 1, 3)
	c, prefix := prefixed(t, d.FailoverClient(t))
	m := holdReentrant(t, c)
	addrs := d.SentinelAddrs()

	for _, tc := range []struct {
		name string
		conn []string
	}{
		{"one sentinel", []string{"--sentinel-master", d.MasterName(), "--sentinel", addrs[0]}},
		{"repeated and comma-separated", []string{"--sentinel-master", d.MasterName(),
			"--sentinel", addrs[0] + "," + addrs[1], "--sentinel", addrs[2]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl := cli{conn: tc.conn}
			var l Lock
			cl.okJSON(t, &l, "show", "--prefix", prefix, m.Name())
			wantHeld(t, &l, m)

			var entries []Entry
			cl.okJSON(t, &entries, "ls", "--prefix", prefix)
			if len(entries) != 1 || entries[0].Name != m.Name() {
				t.Fatalf("ls listed %+v, want only %s", entries, m.Name())
			}
			if got, want := holderLines(entries[0].Holders), []string{"owner exclusive 2 " + itoa(m.Token())}; !slices.Equal(got, want) {
				t.Errorf("ls: holders %q, want %q", got, want)
			}
		})
	}
}

func TestConnect_sentinel_follows_a_failover(t *testing.T) {
	d := redistest.StartSentinel(t, 1, 3)
	rc := d.FailoverClient(t)
	c, prefix := prefixed(t, rc)
	cl := cli{conn: []string{"--sentinel-master", d.MasterName(), "--sentinel", strings.Join(d.SentinelAddrs(), ",")}}

	master := d.Failover(t)
	d.Master().Kill(t) // the old master: only the sentinels now lead to the lock
	m := holdReentrant(t, c)
	if n, err := master.Client(t).Exists(redistest.Ctx(t, 5*time.Second), keys(prefix, m.Name()).Base).Result(); err != nil || n != 1 {
		t.Fatalf("EXISTS on the new master %s = %d, %v; want the lock there", master.Addr(), n, err)
	}
	var l Lock
	cl.okJSON(t, &l, "show", "--prefix", prefix, m.Name())
	wantHeld(t, &l, m)
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

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key
// to dir, and returns their paths.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for file, block := range map[string]*pem.Block{
		certFile: {Type: "CERTIFICATE", Bytes: der},
		keyFile:  {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(file, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

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
			var l Lock
			cli{conn: tc.conn}.okJSON(t, &l, "show", "--prefix", prefix, m.Name())
			wantHeld(t, &l, m)
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
