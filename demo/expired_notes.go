package demo

import (
	"fmt"
	"strings"
	"time"
)

// faultMark is where an informer stood when markRelists ran: its
// reflector's errors and 410s, and each listener's sync OnUpdates.
type faultMark struct {
	errors, gone uint64
	syncs        map[string]uint64
}

// mark is the informer's faultMark.
func (d *Demo) mark(informer string) faultMark {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.facts.faultMark[informer]
}

// refusedSince counts the informer's calls refused since markRelists, and
// when the last one was: each failed call other than a 410.
func refusedSince(d *Demo, informer string) (int, time.Time) {
	r := d.Informer(informer).State().Reflector
	m := d.mark(informer)
	n := int(r.Errors-m.errors) - int(r.WatchErrors-m.gone)
	return max(n, 0), r.LastErrorTime
}

// goneSeen: every informer's re-watch has been answered 410 Gone since
// markRelists (the tap sees the ERROR event the reflector keeps to itself).
func goneSeen(d *Demo) bool {
	for _, e := range d.Informers() {
		if e.State().Reflector.WatchErrors <= d.mark(e.Name()).gone {
			return false
		}
	}
	return true
}

// serverUpNote is said as the server comes back: in the future tense, as
// the reflector is still in a backoff wait and learns it only at its next
// try.
func serverUpNote(d *Demo, now time.Time) []string {
	name := d.Informers()[0].Name()
	n, last := refusedSince(d, name)
	next := "Its next try will reach the server, and"
	if n > 0 {
		lo, hi := backoffWait(n)
		next = fmt.Sprintf("Refused %s, its next try comes in about %s;", pluralTimes(n), secondsRange(last.Add(lo).Sub(now), last.Add(hi).Sub(now)))
	}
	return []string{
		"The server is back, but the reflector does not know yet: " + backoffRule + ".",
		next + " the server will answer that re-watch with 410 Gone (Expired): its resourceVersion was compacted away.",
	}
}

// goneNote is said once the 410 has come: the relist follows one more
// backoff wait.
func goneNote(d *Demo) []string {
	n, _ := refusedSince(d, d.Informers()[0].Name())
	lo, hi := backoffWait(n + 1)
	how := "LIST again"
	if d.cfg.watchList {
		how = "list again (streamed, as its first list was)"
	}
	return []string{fmt.Sprintf("The re-watch came and the server answered 410 Gone (Expired): Events view (5). The reflector has to %s, after one more backoff wait of about %s; then watch for the Relist.", how, secondsRange(lo, hi))}
}

func pluralTimes(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// relistSyncNote is the relist's OnUpdate calls for the pods that had not
// changed, counted from the first listener's sync OnUpdates since the
// fault (all listeners get the same).
func relistSyncNote(d *Demo) string {
	e := d.Informers()[0]
	r := e.State().Reflector
	return fmt.Sprintf("The relist also listed %s cached and unchanged (the workload was held): client-go v0.37 hands each to OnUpdate(old, new) with the same resourceVersion, a sync "+
		"(\"OnUpdate is also called when a re-list happens\").",
		pluralPods(r.LastListItems))
}

func pluralPods(n int) string {
	if n == 1 {
		return "1 pod"
	}
	return fmt.Sprintf("%d pods", n)
}

// relistSyncStatus counts each listener's sync OnUpdates since the fault,
// the relist's among them.
func relistSyncStatus(d *Demo) []string {
	e := d.Informers()[0]
	m := d.mark(e.Name())
	if m.syncs == nil {
		return nil
	}
	var parts []string
	for _, ls := range e.State().Listeners {
		parts = append(parts, fmt.Sprintf("%s %d", ls.Name, ls.Delivered.Sync-m.syncs[ls.Name]))
	}
	return []string{"OnUpdate (sync) since the relist: " + strings.Join(parts, " · ")}
}
