package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Exit statuses.
const (
	exitOK    = 0 // done
	exitFail  = 1 // an error, or a destructive command refused
	exitUsage = 2 // bad command line
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// command is one of lockkit's commands.
type command struct {
	synopsis string // what follows "lockkit " in the usage line
	summary  string
	maxArgs  int // positional arguments at most
	minArgs  int // positional arguments at least
	// flags adds the command's own flags to fs.
	flags func(fs *flag.FlagSet)
	// run runs the command with its positional arguments.
	run func(ctx context.Context, e *env, args []string) error
}

// onLock returns the command on one lock, NAME: its only positional
// argument, which run receives. An empty NAME is a bad command line: no
// lock has it (the library refuses an empty name).
func onLock(synopsis, summary string, flags func(fs *flag.FlagSet), run func(ctx context.Context, e *env, name string) error) *command {
	return &command{
		synopsis: synopsis,
		summary:  summary,
		minArgs:  1,
		maxArgs:  1,
		flags:    flags,
		run: func(ctx context.Context, e *env, args []string) error {
			name, err := lockName(args[0])
			if err != nil {
				return err
			}
			return run(ctx, e, name)
		},
	}
}

// env is what a command runs with.
type env struct {
	opts   *options
	rc     redis.UniversalClient
	stdout io.Writer
	stderr io.Writer
}

// errRefused is returned by a destructive command that was not confirmed;
// it has said why already.
var errRefused = errors.New("refused")

// usageError is a bad command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// commands returns the commands by name.
func commands() map[string]*command {
	return map[string]*command{
		"ls":     lsCommand(),
		"show":   showCommand(),
		"watch":  watchCommand(),
		"unlock": unlockCommand(),
	}
}

// run runs lockkit with args (without the program name) and returns its
// exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts := defaultOptions()
	cmds := commands()
	top := newFlagSet("lockkit", "[flags] COMMAND [flags] [ARGS]", opts, stderr)
	top.Usage = func() { usage(stderr, top, cmds) }
	if err := top.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if top.NArg() == 0 {
		usage(stderr, top, cmds)
		return exitUsage
	}
	name := top.Arg(0)
	cmd, ok := cmds[name]
	if !ok {
		fmt.Fprintf(stderr, "lockkit: unknown command %q\n", name)
		usage(stderr, top, cmds)
		return exitUsage
	}
	fs := newFlagSet(name, cmd.synopsis, opts, stderr)
	if cmd.flags != nil {
		cmd.flags(fs)
	}
	pos, err := parseInterleaved(fs, top.Args()[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if len(pos) < cmd.minArgs || len(pos) > cmd.maxArgs {
		fmt.Fprintf(stderr, "usage: lockkit %s\n", cmd.synopsis)
		return exitUsage
	}
	if err := opts.check(); err != nil {
		fmt.Fprintf(stderr, "lockkit: %v\n", err)
		return exitUsage
	}
	rc, err := opts.connect()
	if err != nil {
		fmt.Fprintf(stderr, "lockkit: %v\n", err)
		return exitUsage
	}
	defer rc.Close()
	err = cmd.run(ctx, &env{opts: opts, rc: rc, stdout: stdout, stderr: stderr}, pos)
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "lockkit %s: %v\nusage: lockkit %s\n", name, err, cmd.synopsis)
		return exitUsage
	case errors.Is(err, errRefused):
		return exitFail
	default:
		fmt.Fprintf(stderr, "lockkit %s: %v\n", name, err)
		return exitFail
	}
}

// usage prints the overall usage.
func usage(w io.Writer, fs *flag.FlagSet, cmds map[string]*command) {
	fmt.Fprintln(w, "usage: lockkit [flags] COMMAND [flags] [ARGS]\n\ncommands:")
	for _, name := range sortedKeys(cmds) {
		fmt.Fprintf(w, "  %-40s %s\n", cmds[name].synopsis, cmds[name].summary)
	}
	fmt.Fprintln(w, "\nflags (before or after the command):")
	fs.PrintDefaults()
	fmt.Fprintln(w, "\nSee 'go doc github.com/lockkit/lockkit/cmd/lockkit' for the manual.")
}

// bounded returns ctx bounded by the --timeout flag.
func (e *env) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, e.opts.timeout)
}

// inspect reads and decodes lock name.
func (e *env) inspect(ctx context.Context, name string) (*Lock, error) {
	s, err := readSnapshot(ctx, e.rc, e.opts.prefix, name)
	if err != nil {
		return nil, err
	}
	return decode(s), nil
}
