package core

import (
	"errors"
	"testing"
)

func TestReplication_reads_the_replicas_and_the_backlog_of_a_master(t *testing.T) {
	tests := []struct {
		name      string
		info      map[string]string
		connected int
		backlog   bool
		err       error
	}{
		{"never had a replica", map[string]string{"role": "master", "connected_slaves": "0", "repl_backlog_active": "0"}, 0, false, nil},
		{"replica syncing", map[string]string{"role": "master", "connected_slaves": "1", "slave0": "ip=127.0.0.1,port=7001,state=wait_bgsave,offset=0,lag=0", "repl_backlog_active": "1"}, 1, true, nil},
		{"replica cut off", map[string]string{"role": "master", "connected_slaves": "0", "repl_backlog_active": "1"}, 0, true, nil},
		{"a replica", map[string]string{"role": "slave", "connected_slaves": "0"}, 0, false, ErrReply},
		{"no count", map[string]string{"role": "master", "repl_backlog_active": "1"}, 0, false, ErrReply},
		{"no section", nil, 0, false, ErrReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			connected, backlog, err := replication(tc.info)
			if connected != tc.connected || backlog != tc.backlog || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("replication() = %d, %v, %v; want %d, %v, %v", connected, backlog, err, tc.connected, tc.backlog, tc.err)
			}
		})
	}
}
