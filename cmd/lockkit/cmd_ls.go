package main

import "context"

// lsCommand is ls: one line per lock.
func lsCommand() *command {
	return &command{
		synopsis: "ls [PATTERN]",
		summary:  "list the locks whose names match the glob PATTERN (default all)",
		maxArgs:  1,
		run:      ls,
	}
}

// ls scans for lock hashes under the prefix (on every master of a
// Cluster) and prints one line per lock, in name order.
func ls(ctx context.Context, e *env, args []string) error {
	ctx, cancel := e.bounded(ctx)
	defer cancel()
	pattern := ""
	if len(args) == 1 {
		pattern = args[0]
	}
	names, err := scanLocks(ctx, e.rc, e.opts.prefix, pattern)
	if err != nil {
		return err
	}
	entries := []Entry{}
	for _, name := range names {
		l, err := e.inspect(ctx, name)
		if err != nil {
			return err
		}
		if l.TTLMS == -2 {
			continue // released since the scan
		}
		entries = append(entries, l.entry())
	}
	if e.opts.json() {
		return writeJSON(e.stdout, entries)
	}
	return writeEntries(e.stdout, entries)
}
