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
	s := h.Owner + "(" + strconv.FormatInt(n, 10) + ")"
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", e.Name, e.Kind, e.Mode,
			orDash(strings.Join(holders, " ")), orDash(strings.Join(tokens, ",")), ttl(e.TTLMS), waiters, e.Anomalies, detail(e))
	}
	return tw.Flush()
}

// detail is the last column of ls: what a kind keeps besides holds, "-"
// for the kinds that keep nothing more. A latch: "count=N" while closed,
// "open" once open. An election: leader="VALUE", or "unproclaimed" for a
// moment after its leader won, or "no-leader". A semaphore:
// "used=HELD/PERMITS", or "used=HELD" when the number of permits is not
// stored (the one given to each New applies).
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
		return fmt.Sprintf("used=%d/%d", e.Semaphore.Used, *e.Semaphore.Permits)
	case e.Semaphore != nil:
		return fmt.Sprintf("used=%d", e.Semaphore.Used)
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

// writeLock prints show's report of l.
func writeLock(w io.Writer, l *Lock) error {
	tw := table(w)
	fmt.Fprintf(tw, "lock\t%s\n", l.Name)
	fmt.Fprintf(tw, "key\t%s\n", l.Key)
	fmt.Fprintf(tw, "kind\t%s\n", orDash(l.Kind))
	state := l.Mode
	switch {
	case l.Latch != nil:
		if !l.Latch.Open {
			state += fmt.Sprintf(", %d left", l.Latch.Count)
		}
		state += ", " + expiry(l.TTLMS)
	case l.TTLMS != -2:
		state += ", lease " + ttl(l.TTLMS)
	}
	fmt.Fprintf(tw, "state\t%s\n", state)
	fmt.Fprintf(tw, "server time\t%s\n", serverTime(l.ServerTimeMS))
	if lt := l.Latch; lt != nil {
		fmt.Fprintf(tw, "count\t%d left, %d count-downs recorded\n", lt.Count, lt.CountDowns)
		fmt.Fprintf(tw, "expiry\t%s\n", expiry(l.TTLMS))
	}
	if el := l.Election; el != nil {
		leader := "nobody"
		switch {
		case el.Value != nil:
			leader = strconv.Quote(*el.Value) + " (" + el.Leader + ")"
		case el.Leader != "":
			leader = el.Leader + ", value not proclaimed yet"
		}
		fmt.Fprintf(tw, "leader\t%s\n", leader)
		if el.Leader != "" {
			fmt.Fprintf(tw, "term\t%d\n", el.Term)
			fmt.Fprintf(tw, "lease\t%s\n", ttl(el.LeaseMS))
		}
	}
	if sem := l.Semaphore; sem != nil {
		permits := "not stored: the number each semaphore.New was given applies"
		if sem.Permits != nil {
			permits = fmt.Sprintf("%d (set at run time, %s)", *sem.Permits, expiry(sem.PermitsTTLMS))
		}
		fmt.Fprintf(tw, "permits\t%s\n", permits)
		used := fmt.Sprintf("%d held", sem.Used)
		if sem.Live != sem.Used {
			used += fmt.Sprintf(" (%d by holds whose lease ended)", sem.Used-sem.Live)
		}
		if sem.Free != nil {
			used += fmt.Sprintf(", %d free", *sem.Free)
		}
		fmt.Fprintf(tw, "used\t%s\n", used)
	}
	if l.Latch == nil || l.Fence != 0 {
		fmt.Fprintf(tw, "fence\t%d (last token minted)\n", l.Fence)
	}
	if err := tw.Flush(); err != nil {
		return err
	}

	if l.Latch == nil {
		fmt.Fprintf(w, "\nholders: %d\n", len(l.Holders))
	}
	if len(l.Holders) > 0 {
		tw = table(w)
		if l.Semaphore != nil {
			fmt.Fprintln(tw, "  HOLD\tPERMITS\tTOKEN\tLEASE")
		} else {
			fmt.Fprintln(tw, "  OWNER\tMODE\tCOUNT\tTOKEN\tLEASE")
		}
		for _, h := range l.Holders {
			lease := ttl(h.LeaseMS)
			if h.LeaseMS == -1 && h.Mode != "exclusive" {
				lease = "no lease"
			}
			if l.Semaphore != nil {
				fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", h.Owner, h.Permits, h.Token, lease)
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\n", h.Owner, h.Mode, h.Count, h.Token, lease)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, h := range l.Holders {
			if h.Info != "" {
				fmt.Fprintf(w, "  %s: %s\n", h.Owner, h.Info)
			}
		}
	}

	if q := l.Queue; q != nil {
		fmt.Fprintf(w, "\nqueue: %d waiting\n", q.Length)
		if len(q.Waiters) > 0 {
			tw = table(w)
			if l.Semaphore != nil {
				fmt.Fprintln(tw, "  #\tWAITER\tPERMITS\tARRIVAL\tDEADLINE")
			} else {
				fmt.Fprintln(tw, "  #\tOWNER\tARRIVAL\tDEADLINE")
			}
			for i, wt := range q.Waiters {
				deadline := "none"
				if wt.LeftMS != nil {
					deadline = "in " + ms(*wt.LeftMS)
					if wt.Expired {
						deadline = ms(*wt.LeftMS) + " (dead)"
					}
				}
				if l.Semaphore != nil {
					fmt.Fprintf(tw, "  %d\t%s\t%d\t%d\t%s\n", i+1, wt.Owner, wt.Permits, wt.Arrival, deadline)
					continue
				}
				fmt.Fprintf(tw, "  %d\t%s\t%d\t%s\n", i+1, wt.Owner, wt.Arrival, deadline)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}

	if wr := l.Writers; wr != nil {
		var extra []string
		if wr.Claimed {
			extra = append(extra, "claimed")
		}
		if wr.HandoffLeftMS != nil {
			extra = append(extra, "hand-off "+ms(*wr.HandoffLeftMS)+" left")
		}
		head := fmt.Sprintf("\nwriters: %d waiting", wr.Waiting)
		if len(extra) > 0 {
			head += " (" + strings.Join(extra, ", ") + ")"
		}
		fmt.Fprintln(w, head)
		if len(wr.Intents) > 0 {
			tw = table(w)
			fmt.Fprintln(tw, "  OWNER\tINTENT")
			for _, in := range wr.Intents {
				fmt.Fprintf(tw, "  %s\t%s\n", in.Owner, "lapses in "+ms(in.LeftMS))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}

	if len(l.Processes) > 0 {
		fmt.Fprintf(w, "\nwaiting processes: %d\n", len(l.Processes))
		tw = table(w)
		for _, p := range l.Processes {
			fmt.Fprintf(tw, "  %s\t%s\n", p.ID, "waiting "+ms(p.WaitingMS))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	if len(l.Subscribers) > 0 {
		fmt.Fprintln(w, "\nsubscribers (processes with local waiters):")
		tw = table(w)
		for _, s := range l.Subscribers {
			fmt.Fprintf(tw, "  %s\t%s\t%d\n", s.Channel, s.Role, s.Count)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	if len(l.Anomalies) == 0 {
		_, err := fmt.Fprintln(w, "\nanomalies: none")
		return err
	}
	fmt.Fprintf(w, "\nanomalies: %d\n", len(l.Anomalies))
	for _, a := range l.Anomalies {
		fmt.Fprintf(w, "  - %s\n", a)
	}
	return nil
}
