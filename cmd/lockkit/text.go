package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// The text output: tables for people. Scripts should use -o json, whose
// field names are stable (see doc.go).

// table returns a tabwriter for aligned columns on w; Flush it.
func table(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

// ms formats a duration in ms for people: "29.871s"; "expired 120ms ago"
// when negative.
func ms(d int64) string {
	if d < 0 {
		return "expired " + (time.Duration(-d) * time.Millisecond).String() + " ago"
	}
	return (time.Duration(d) * time.Millisecond).String()
}

// ttl formats a PTTL: "no TTL" for -1, "-" for -2 (no key).
func ttl(pttl int64) string {
	switch pttl {
	case -1:
		return "no TTL"
	case -2:
		return "-"
	}
	return ms(pttl)
}

// expiry formats a latch's PTTL: "expires in 23h59m59.5s", or "never
// expires (no TTL)".
func expiry(pttl int64) string {
	if pttl == -1 {
		return "never expires (no TTL)"
	}
	return "expires in " + ttl(pttl)
}

// serverTime formats a server time in ms.
func serverTime(at int64) string {
	return time.UnixMilli(at).UTC().Format("2006-01-02T15:04:05.000Z")
}

// holdLabel names a hold for a one-line list: OWNER(COUNT), with "w:" or
// "r:" before a read-write hold's owner; a semaphore's hold is
// ID(PERMITS).
func holdLabel(h Holder) string {
	n := h.Count
	if h.Mode == "permits" {
		n = h.Permits
	}
	s := shown(h.Owner) + "(" + strconv.FormatInt(n, 10) + ")"
	switch h.Mode {
	case "write":
		s = "w:" + s
	case "read":
		s = "r:" + s
	}
	if h.Expired {
		s += "[expired]"
	}
	return s
}

// writeEntries prints ls's table.
func writeEntries(w io.Writer, entries []Entry) error {
	tw := table(w)
	fmt.Fprintln(tw, "NAME\tKIND\tMODE\tHOLDERS\tTOKEN\tTTL\tWAITERS\tANOMALIES\tDETAIL")
	for _, e := range entries {
		holders, tokens := []string{}, []string{}
		for _, h := range e.Holders {
			holders = append(holders, holdLabel(h))
			tokens = append(tokens, strconv.FormatInt(h.Token, 10))
		}
		waiters := "-"
		if e.Waiters != nil {
			waiters = strconv.FormatInt(*e.Waiters, 10)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", shown(e.Name), e.Kind, e.Mode,
			orDash(strings.Join(holders, " ")), orDash(strings.Join(tokens, ",")), ttl(e.TTLMS), waiters, e.Anomalies, detail(e))
	}
	return tw.Flush()
}

// detail is the last column of ls: what a kind keeps besides holds, "-"
// for the kinds that keep nothing more. A latch: "count=N" while closed,
// "open" once open. An election: leader="VALUE", or "unproclaimed" for a
// moment after its leader won, or "no-leader". A semaphore:
// "used=HELD/PERMITS", or "used=HELD" when the number of permits is not
// stored (the one given to each New applies); HELD counts the holds whose
// lease has not ended.
func detail(e Entry) string {
	switch {
	case e.Latch != nil && e.Latch.Open:
		return "open"
	case e.Latch != nil:
		return "count=" + strconv.FormatInt(e.Latch.Count, 10)
	case e.Election != nil && e.Election.Value != nil:
		return "leader=" + strconv.Quote(*e.Election.Value)
	case e.Election != nil && e.Election.Leader != "":
		return "unproclaimed"
	case e.Election != nil:
		return "no-leader"
	case e.Semaphore != nil && e.Semaphore.Permits != nil:
		return fmt.Sprintf("used=%d/%d", e.Semaphore.Live, *e.Semaphore.Permits)
	case e.Semaphore != nil:
		return fmt.Sprintf("used=%d", e.Semaphore.Live)
	}
	return "-"
}

// orDash returns s, or "-" when it is empty.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
