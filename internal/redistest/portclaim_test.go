package redistest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestClaim_keeps_a_killed_servers_port_from_other_servers: the port of a
// server stays claimed after Kill, so that freePort hands it to no other
// server (of this process or another); a claim whose process is gone is
// taken over; the claim ends with the test that started the server.
func TestClaim_keeps_a_killed_servers_port_from_other_servers(t *testing.T) {
	var port int
	t.Run("server", func(t *testing.T) {
		s := StartServer(t)
		port = s.port
		s.Kill(t)
		if ok, err := claimPort(port, false); ok || err != nil {
			t.Fatalf("claim of a killed server's port = %v, %v; want false, nil", ok, err)
		}
	})
	// The test that started it ended: the port is free to claim again.
	if ok, err := claimPort(port, false); !ok || err != nil {
		t.Fatalf("claim once the server's test ended = %v, %v; want true, nil", ok, err)
	}
	releasePort(port, false)

	// A claim left by a process that is gone is stale.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(claimDir(), strconv.Itoa(port))
	if err := os.WriteFile(path, []byte(strconv.Itoa(gone.Process.Pid)), 0o666); err != nil {
		t.Fatal(err)
	}
	if ok, err := claimPort(port, false); !ok || err != nil {
		t.Fatalf("claim over a gone process's claim = %v, %v; want true, nil", ok, err)
	}
	releasePort(port, false)
}
