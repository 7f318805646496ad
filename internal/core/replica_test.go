package core

import (
	"errors"
	"testing"
)

func TestReplication_reads_the_replicas_and_the_backlog_of_a_master(t *testing.T) {
	tests := []struct {
		name      string
		info      string
		connected int
		backlog   bool
		err       error
	}{
		{"never had a replica", "# Replication\r\nrole:master\r\nconnected_slaves:0\r\nrepl_backlog_active:0\r\n", 0, false, nil},
		{"replica syncing", "# Replication\r\nrole:master\r\nconnected_slaves:1\r\nslave0:ip=127.0.0.1,port=7001,state=wait_bgsave,offset=0,lag=0\r\nrepl_backlog_active:1\r\n", 1, true, nil},
		{"replica cut off", "role:master\nconnected_slaves:0\nrepl_backlog_active:1\n", 0, true, nil},
		{"a replica", "role:slave\r\nconnected_slaves:0\r\n", 0, false, ErrReply},
		{"no count", "role:master\r\nrepl_backlog_active:1\r\n", 0, false, ErrReply},
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
