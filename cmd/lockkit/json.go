package main

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as JSON on one line (a value per line, so that
// watch's events can be read as they come).
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}
