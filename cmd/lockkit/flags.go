package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/lockkit/lockkit"
)

// options are the flags every command takes: where Redis is, which
// prefix the locks use, and how to print. Commands add their own flags to
// the same FlagSet.
type options struct {
	url            string
	host           string
	port           int
	password       string
	user           string
	db             dbFlag
	tls            bool
	cacert         string // --cacert: CA certificates to trust for TLS
	insecure       bool   // --insecure: skip verifying the server's certificate
	cluster        bool
	sentinelMaster string
	sentinels      listFlag
	prefix         string
	output         string
	timeout        time.Duration
}

// defaultOptions returns the options before any flag is parsed.
func defaultOptions() *options {
	return &options{
		host:    "127.0.0.1",
		port:    6379,
		prefix:  lockkit.DefaultPrefix,
		output:  "text",
		timeout: 10 * time.Second,
	}
}

// register adds the common flags to fs, each defaulting to the value o
// has now, so that flags given before the command survive.
func (o *options) register(fs *flag.FlagSet) {
	for _, f := range []struct {
		p     any // the field of o the flag sets
		name  string
		usage string
	}{
		{&o.url, "u", "server `URL`: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or rediss:// for TLS"},
		{&o.host, "h", "server `HOST`"},
		{&o.port, "p", "server `PORT`"},
		{&o.password, "a", "`PASSWORD` (also read from REDISCLI_AUTH)"},
		{&o.user, "user", "ACL `USER`name"},
		{&o.db, "n", "database `NUMBER` (not with --cluster)"},
		{&o.tls, "tls", "connect with TLS"},
		{&o.cacert, "cacert", "PEM `FILE` of the CA certificates that sign the server's (with --tls or rediss://; default: the system's)"},
		{&o.insecure, "insecure", "with TLS, do not verify the server's certificate"},
		{&o.cluster, "cluster", "the server is a node of a Redis Cluster"},
		{&o.sentinelMaster, "sentinel-master", "connect to the master `NAME` through Sentinel"},
		{&o.sentinels, "sentinel", "Sentinel `ADDR` (repeat, or separate with commas)"},
		{&o.prefix, "prefix", "key `PREFIX` of the locks (lockkit.WithPrefix)"},
		{&o.output, "o", "output `FORMAT`: text or json"},
		{&o.timeout, "timeout", "bound of each command's work (not of watch)"},
	} {
		switch p := f.p.(type) {
		case flag.Value:
			fs.Var(p, f.name, f.usage)
		case *string:
			fs.StringVar(p, f.name, *p, f.usage)
		case *int:
			fs.IntVar(p, f.name, *p, f.usage)
		case *bool:
			fs.BoolVar(p, f.name, *p, f.usage)
		case *time.Duration:
			fs.DurationVar(p, f.name, *p, f.usage)
		default:
			panic(fmt.Sprintf("flag -%s: no case for %T", f.name, p))
		}
	}
}

// check reports flag values that cannot work together.
func (o *options) check() error {
	switch {
	case o.output != "text" && o.output != "json":
		return fmt.Errorf("-o %q: want text or json", o.output)
	case o.prefix == "" || strings.ContainsAny(o.prefix, "{}"):
		return fmt.Errorf("--prefix %q: must be non-empty and free of '{' and '}'", o.prefix)
	case o.cluster && o.sentinelMaster != "":
		return errors.New("--cluster and --sentinel-master exclude each other")
	case o.sentinelMaster != "" && len(o.sentinels) == 0:
		return errors.New("--sentinel-master needs at least one --sentinel ADDR")
	case o.sentinelMaster == "" && len(o.sentinels) > 0:
		// Else the command would read another server (-h, -p) unasked.
		return errors.New("--sentinel needs --sentinel-master NAME")
	case o.sentinelMaster != "" && o.url != "":
		// A URL names one server, which Sentinel would not use.
		return errors.New("-u and --sentinel-master exclude each other: give the password with -a, the user with --user")
	case o.cluster && o.db.n != 0:
		return errors.New("-n: a Cluster has database 0 only")
	case o.timeout <= 0:
		return fmt.Errorf("--timeout %v: must be positive", o.timeout)
	}
	return nil
}

// json reports whether output is JSON.
func (o *options) json() bool { return o.output == "json" }

// dbFlag is -n: a database number, and whether it was given, so that -n 0
// overrides the database of a -u URL too.
type dbFlag struct {
	n   int
	set bool
}

// String implements flag.Value.
func (d *dbFlag) String() string { return strconv.Itoa(d.n) }

// Set implements flag.Value.
func (d *dbFlag) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return errors.New("not a number")
	}
	d.n, d.set = n, true
	return nil
}

// listFlag is a flag that may be repeated; each value may also hold a
// comma-separated list.
type listFlag []string

// String implements flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value.
func (l *listFlag) Set(v string) error {
	for s := range strings.SplitSeq(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// newFlagSet returns the FlagSet of command name with the common flags of
// o; its usage shows synopsis and the flags.
func newFlagSet(name, synopsis string, o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: lockkit %s\n\nflags:\n", synopsis)
		fs.PrintDefaults()
	}
	o.register(fs)
	return fs
}

// parseInterleaved parses args with fs, letting flags come before, between
// or after the positional arguments (up to a "--", after which everything
// is positional), and returns the positional arguments.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// flag stops at the first non-flag, or consumes a "--" before it.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
