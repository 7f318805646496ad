package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// writeLock prints show's report of l.
func writeLock(w io.Writer, l *Lock) error {
	tw := table(w)
	fmt.Fprintf(tw, "lock\t%s\n", shown(l.Name))
	fmt.Fprintf(tw, "key\t%s\n", shown(l.Key))
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
			leader = strconv.Quote(*el.Value) + " (" + shown(el.Leader) + ")"
		case el.Leader != "":
			leader = shown(el.Leader) + ", value not proclaimed yet"
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
		header, row := holderColumns(l)
		if err := writeRows(w, header, l.Holders, row); err != nil {
			return err
		}
		for _, h := range l.Holders {
			if h.Info != "" {
				fmt.Fprintf(w, "  %s: %s\n", shown(h.Owner), oneLine(h.Info))
			}
		}
	}

	if q := l.Queue; q != nil {
		fmt.Fprintf(w, "\nqueue: %d waiting\n", q.Length)
		if len(q.Waiters) > 0 {
			header, row := queueColumns(l)
			if err := writeRows(w, header, q.Waiters, row); err != nil {
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
			intent := func(_ int, in Intent) string { return shown(in.Owner) + "\tlapses in " + ms(in.LeftMS) }
			if err := writeRows(w, "OWNER\tINTENT", wr.Intents, intent); err != nil {
				return err
			}
		}
	}

	if len(l.Processes) > 0 {
		fmt.Fprintf(w, "\nwaiting processes: %d\n", len(l.Processes))
		process := func(_ int, p Process) string { return shown(p.ID) + "\twaiting " + ms(p.WaitingMS) }
		if err := writeRows(w, "", l.Processes, process); err != nil {
			return err
		}
	}

	if len(l.Subscribers) > 0 {
		fmt.Fprintln(w, "\nsubscribers (processes with local waiters):")
		subscriber := func(_ int, s Subscribers) string { return fmt.Sprintf("%s\t%s\t%d", shown(s.Channel), s.Role, s.Count) }
		if err := writeRows(w, "", l.Subscribers, subscriber); err != nil {
			return err
		}
	}

	if len(l.Anomalies) == 0 {
		_, err := fmt.Fprintln(w, "\nanomalies: none")
		return err
	}
	fmt.Fprintf(w, "\nanomalies: %d\n", len(l.Anomalies))
	for _, a := range l.Anomalies {
		fmt.Fprintf(w, "  - %s\n", oneLine(a))
	}
	return nil
}

// writeRows prints a row per item, row(i, item) with its columns
// separated by tabs, as an aligned table on w indented by two spaces,
// below header when it is not empty.
func writeRows[T any](w io.Writer, header string, items []T, row func(int, T) string) error {
	tw := table(w)
	if header != "" {
		fmt.Fprintln(tw, "  "+header)
	}
	for i, x := range items {
		fmt.Fprintln(tw, "  "+row(i, x))
	}
	return tw.Flush()
}

// kindColumns returns the header and the row of one of show's tables of
// l: header and row for most kinds, sem and semRow for a semaphore, whose
// tables have columns of their own.
func kindColumns[T any](l *Lock, header string, row func(int, T) string, sem string, semRow func(int, T) string) (string, func(int, T) string) {
	if l.Semaphore != nil {
		return sem, semRow
	}
	return header, row
}

// holderColumns returns the header and the row of show's table of l's holds:
// by owner, mode and count, or a semaphore's by hold id and permits.
func holderColumns(l *Lock) (string, func(int, Holder) string) {
	return kindColumns(l,
		"OWNER\tMODE\tCOUNT\tTOKEN\tLEASE", func(_ int, h Holder) string {
			return fmt.Sprintf("%s\t%s\t%d\t%d\t%s", shown(h.Owner), h.Mode, h.Count, h.Token, holdLease(h))
		},
		"HOLD\tPERMITS\tTOKEN\tLEASE", func(_ int, h Holder) string {
			return fmt.Sprintf("%s\t%d\t%d\t%s", shown(h.Owner), h.Permits, h.Token, holdLease(h))
		})
}

// holdLease formats the lease left to hold h: "no lease" for a hold
// without one that is not exclusive.
func holdLease(h Holder) string {
	if h.LeaseMS == -1 && h.Mode != "exclusive" {
		return "no lease"
	}
	return ttl(h.LeaseMS)
}

// queueColumns returns the header and the row of show's table of l's queue, in
// order, with the permits each waiter wants on a semaphore.
func queueColumns(l *Lock) (string, func(int, Waiter) string) {
	return kindColumns(l,
		"#\tOWNER\tARRIVAL\tDEADLINE", func(i int, w Waiter) string {
			return fmt.Sprintf("%d\t%s\t%d\t%s", i+1, shown(w.Owner), w.Arrival, waiterDeadline(w))
		},
		"#\tWAITER\tPERMITS\tARRIVAL\tDEADLINE", func(i int, w Waiter) string {
			return fmt.Sprintf("%d\t%s\t%d\t%d\t%s", i+1, shown(w.Owner), w.Permits, w.Arrival, waiterDeadline(w))
		})
}

// waiterDeadline formats when waiter w's place in the queue lapses:
// "none", "in 4.2s", or "120ms (dead)" once past.
func waiterDeadline(w Waiter) string {
	switch {
	case w.LeftMS == nil:
		return "none"
	case w.Expired:
		return ms(*w.LeftMS) + " (dead)"
	}
	return "in " + ms(*w.LeftMS)
}
