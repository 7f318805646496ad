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

	"github.com/lockkit/lockkit/internal/redistest"
)

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
