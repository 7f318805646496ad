package redistest

import (
	"io"
	"os"
	"strings"
)

// tailBytes caps how much of a log file goes into a failure message.
const tailBytes = 4096

// fileSize returns the size of the file at path, or 0 if it does not exist.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// tail returns up to the last tailBytes bytes written to the file at path
// after offset from, trimmed and indented for a failure message.
func tail(path string, from int64) string {
	f, err := os.Open(path)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer f.Close()
	if size := fileSize(path); size-from > tailBytes {
		from = size - tailBytes
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	b, err := io.ReadAll(io.LimitReader(f, tailBytes))
	if err != nil {
		return "(log unreadable: " + err.Error() + ")"
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty)"
	}
	return "\n\t" + strings.ReplaceAll(s, "\n", "\n\t")
}
