package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// connect returns the go-redis client the connection flags describe, in
// the manner of redis-cli: a Sentinel (failover) client with
// --sentinel-master, a Cluster client with --cluster, else a plain one.
// -u gives the address and credentials as a URL; -a, --user, --tls and -n
// given as well override what the URL says. REDISCLI_AUTH is the password
// only when neither -a nor the URL gives one, as in redis-cli. The client
// sets deadlines on its sockets from the ctx of each call
// (ContextTimeoutEnabled), so that --timeout bounds a command also against
// a server that stopped answering, and its read and write timeouts are
// --timeout too, so that a reply is waited for as long as --timeout
// allows, not go-redis's default 5 s. The caller closes the client.
func (o *options) connect() (redis.UniversalClient, error) {
	addr := net.JoinHostPort(o.host, strconv.Itoa(o.port))
	switch {
	case o.sentinelMaster != "":
		opt := &redis.FailoverOptions{MasterName: o.sentinelMaster, SentinelAddrs: o.sentinels, DB: o.db.n}
		o.settle(&opt.ContextTimeoutEnabled, &opt.MaxRetries, &opt.ReadTimeout, &opt.WriteTimeout, &opt.Username, &opt.Password)
		if o.tls {
			opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		if err := o.tuneTLS(opt.TLSConfig); err != nil {
			return nil, err
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
		o.settle(&opt.ContextTimeoutEnabled, &opt.MaxRetries, &opt.ReadTimeout, &opt.WriteTimeout, &opt.Username, &opt.Password)
		if o.tls && opt.TLSConfig == nil {
			opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		if err := o.tuneTLS(opt.TLSConfig); err != nil {
			return nil, err
		}
		return redis.NewClusterClient(opt), nil
	default:
		opt := &redis.Options{Addr: addr, DB: o.db.n}
		if o.url != "" {
			var err error
			if opt, err = redis.ParseURL(o.url); err != nil {
				return nil, fmt.Errorf("-u: %w", err)
			}
			if o.db.set {
				opt.DB = o.db.n
			}
		}
		o.settle(&opt.ContextTimeoutEnabled, &opt.MaxRetries, &opt.ReadTimeout, &opt.WriteTimeout, &opt.Username, &opt.Password)
		if o.tls && opt.TLSConfig == nil {
			host, _, _ := net.SplitHostPort(opt.Addr)
			opt.TLSConfig = &tls.Config{MinVersion: tls.VersionTLS12, ServerName: host}
		}
		if err := o.tuneTLS(opt.TLSConfig); err != nil {
			return nil, err
		}
		return redis.NewClient(opt), nil
	}
}

// tuneTLS applies --cacert and --insecure to c, the TLS configuration of a
// connection (nil: no TLS, where they are an error).
func (o *options) tuneTLS(c *tls.Config) error {
	if c == nil {
		if o.cacert != "" || o.insecure {
			return errors.New("--cacert and --insecure need --tls or a rediss:// URL")
		}
		return nil
	}
	if o.cacert != "" {
		pem, err := os.ReadFile(o.cacert)
		if err != nil {
			return fmt.Errorf("--cacert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--cacert: no PEM certificate in %s", o.cacert)
		}
		c.RootCAs = pool
	}
	c.InsecureSkipVerify = o.insecure
	return nil
}

// settle sets what a client of every kind takes from the flags, over
// what a URL gave: deadlines on its sockets from each call's ctx,
// --timeout as its read and write timeouts, no retry of a command (a
// request that a call left behind at its deadline, which the Client's
// Close waits for, then ends at its first read timeout, not at the
// fourth), and --user and -a (or $REDISCLI_AUTH, when neither -a nor the
// URL gives a password).
func (o *options) settle(ctxTimeout *bool, retries *int, read, write *time.Duration, user, password *string) {
	*ctxTimeout, *retries = true, -1
	*read, *write = o.timeout, o.timeout
	override(user, o.user)
	override(password, o.password)
	fallback(password, os.Getenv("REDISCLI_AUTH"))
}

// override sets *dst to v when v is given.
func override(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// fallback sets *dst to v when *dst is empty.
func fallback(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}
