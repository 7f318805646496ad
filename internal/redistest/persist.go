package redistest

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Persistence is how a server started by [StartPersistent] keeps its data
// on disk, in its directory, for a restart to load.
type Persistence int

const (
	// RDB keeps an RDB file, dump.rdb, written by SAVE alone (no save
	// points, so that its moment is the test's choice).
	RDB Persistence = iota
	// AOF keeps an append-only file (appendonly yes, appendfsync
	// everysec) in the directory appendonlydir.
	AOF
)

// String names p as the tests' subtests do.
func (p Persistence) String() string {
	if p == AOF {
		return "AOF"
	}
	return "RDB"
}

// aofDir is the directory, under a server's own, of its append-only file.
const aofDir = "appendonlydir"

// args returns the redis-server settings of p, which follow (and so
// override) the defaults that turn persistence off.
func (p Persistence) args() []string {
	if p == AOF {
		return []string{"--appendonly", "yes", "--appendfsync", "everysec", "--appenddirname", aofDir}
	}
	return []string{"--dbfilename", "dump.rdb"}
}

// files returns the names, in a server's directory, of what p keeps.
func (p Persistence) files() string {
	if p == AOF {
		return aofDir
	}
	return "dump.rdb"
}

// StartPersistent starts n independent standalone redis-servers, as
// [StartMasters] does, that keep their data with p: [Server.Snapshot]
// takes the files of a moment, and [Server.RestartFrom] starts a server
// again from them, as a restart (or a crash) of a server with persistence
// brings back the data of some moment before it.
func StartPersistent(t testing.TB, n int, p Persistence) []*Server {
	t.Helper()
	return launchServers(t, n, func(s *Server) { s.persist = &p }, false)
}

// Snapshot is the persistence files of a server at one moment, copied
// aside by [Server.Snapshot].
type Snapshot struct {
	p   Persistence
	dir string // holds the copy, under the name the server gives it
}

// Snapshot returns the server's persistence files as of now: for RDB it
// runs SAVE first; for AOF it waits until the server has written every
// command it answered to the file. The server goes on running.
func (s *Server) Snapshot(t testing.TB) Snapshot {
	t.Helper()
	if s.persist == nil {
		t.Fatalf("redistest: Snapshot of redis-server %s, which keeps no data", s.Addr())
	}
	p := *s.persist
	c := adminClient(s.Addr())
	defer c.Close()
	if p == RDB {
		if err := c.Save(Ctx(t, 10*time.Second)).Err(); err != nil {
			t.Fatalf("redistest: SAVE on %s: %v", s.Addr(), err)
		}
	} else {
		Eventually(t, 10*time.Second, "the AOF buffer to be written", func() bool {
			info, err := c.Info(Ctx(t, time.Second), "persistence").Result()
			n, ok := infoField(info, "aof_buffer_length")
			return err == nil && ok && n == "0"
		})
	}
	snap := Snapshot{p: p, dir: t.TempDir()}
	if err := copyTree(filepath.Join(s.dir, p.files()), filepath.Join(snap.dir, p.files())); err != nil {
		t.Fatalf("redistest: copying the files of %s: %v", s.Addr(), err)
	}
	return snap
}

// RestartFrom kills the server, puts snap's files in place of its own and
// starts it again on the same port, returning once it has loaded them and
// answers: the data set is the one of snap's moment, keys with an expiry
// that passed meanwhile left out.
func (s *Server) RestartFrom(t testing.TB, snap Snapshot) {
	t.Helper()
	s.relaunch(t, "RestartFrom", func() {
		dst := filepath.Join(s.dir, snap.p.files())
		if err := os.RemoveAll(dst); err != nil {
			t.Fatal(err)
		}
		if err := copyTree(filepath.Join(snap.dir, snap.p.files()), dst); err != nil {
			t.Fatalf("redistest: restoring the files of %s: %v", s.Addr(), err)
		}
	})
}

// copyTree copies the file or directory (of files) src to dst.
func copyTree(src, dst string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return copyFile(src, dst)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			return fmt.Errorf("unexpected directory %s in %s", e.Name(), src)
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// copyFile copies the regular file src to dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
