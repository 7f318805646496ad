package main

import (
	"crypto/tls"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// connect returns the go-redis client the connection flags describe, in
// the manner of redis-cli: a Sentinel (failover) client with
// --sentinel-master, a Cluster client with --cluster, else a plain one.
// -u gives the address and credentials as a URL; -a, --user, --tls and -n
// given as well override what the URL says. The caller closes the client.
func (o *options) connect() (redis.UniversalClient, error) {
	password := o.password
	if password == "" {
		password = os.Getenv("REDISCLI_AUTH")
	}
	addr := net.JoinHostPort(o.host, strconv.Itoa(o.port))
	switch {
	case o.sentinelMaster != "":
		opt := &redis.FailoverOptions{
			MasterName:    o.sentinelMaster,
			SentinelAddrs: o.sentinels,
			Username:      o.user,
			Password:      password,
			DB:            o.db,
		}
		if o.tls {
			opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		return redis.NewFailoverClient(opt), nil
	case o.cluster:
		opt := &redis.ClusterOptions{Addrs: []string{addr}}
		if o.url != "" {
			var err error
			if opt, err = redis.ParseClusterURL(o.url); err != nil {
				return nil, fmt.Errorf("-u: %w", err)
			}
		}
		override(&opt.Username, o.user)
		override(&opt.Password, password)
		if o.tls && opt.TLSConfig == nil {
			opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		return redis.NewClusterClient(opt), nil
	default:
		opt := &redis.Options{Addr: addr, DB: o.db}
		if o.url != "" {
			var err error
			if opt, err = redis.ParseURL(o.url); err != nil {
				return nil, fmt.Errorf("-u: %w", err)
			}
			if o.db != 0 {
				opt.DB = o.db
			}
		}
		override(&opt.Username, o.user)
		override(&opt.Password, password)
		if o.tls && opt.TLSConfig == nil {
			host, _, _ := net.SplitHostPort(opt.Addr)
			opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
		}
		return redis.NewClient(opt), nil
	}
}

// override sets *dst to v when v is given.
func override(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}
