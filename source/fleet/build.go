package fleet

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// build gathers one refresh's answers into processes and informers. It is
// used by one goroutine at a time.
type build struct {
	at         time.Time // the queries' evaluation time
	agentLabel string
	// clusterLabel names the process's cluster (source.Process.Cluster).
	clusterLabel string
	// procs are the targets by a hash of their labels (targetHash); a
	// bucket holds more than one only when two hash alike.
	procs map[uint64][]*procAcc
	// n counts procs; at maxProcs (admit) no other target is kept: its
	// series are skipped and its hash is counted in others, so a fleet
	// of 200,000 targets costs the model of maxProcs of them, not of all.
	n, maxProcs int
	others      map[uint64]struct{}
}

// procAcc is one scrape target while a refresh's answers come in.
type procAcc struct {
	target    labels // a copy: query's maps are reused
	up        bool
	pprof     bool                    // found by its workqueue_* series alone: no agent
	informers map[string]*informerAcc // by the series' name label
}

func newBuild(at time.Time, agentLabel, clusterLabel string) *build {
	return &build{at: at, agentLabel: agentLabel, clusterLabel: clusterLabel, procs: map[uint64][]*procAcc{}, others: map[uint64]struct{}{}}
}

// target is the series' target labels: all but the agent's own.
func target(m labels) labels {
	t := make(labels, len(m))
	for k, v := range m {
		if !agentLabels[k] {
			t[k] = v
		}
	}
	return t
}

// targetHash hashes the series' target labels without copying them: the
// XOR of each pair's hash, as model.LabelSet.FastFingerprint does, so the
// map's order does not matter. Every series of a refresh goes through it.
func targetHash(m labels) uint64 {
	var h uint64
	for k, v := range m {
		if agentLabels[k] {
			continue
		}
		h ^= fnv1a(fnv1a(fnv1a(fnvOffset, k), "\xff"), v)
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a continues the 64-bit FNV-1a hash h over s, without allocating.
func fnv1a(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// sameTarget reports whether m's target labels are exactly t.
func sameTarget(m, t labels) bool {
	n := 0
	for k, v := range m {
		if agentLabels[k] {
			continue
		}
		if tv, ok := t[k]; !ok || tv != v {
			return false
		}
		n++
	}
	return n == len(t)
}

// proc is the series' target, nil when it is not kept (see admit).
func (b *build) proc(m labels) *procAcc {
	key := targetHash(m)
	for _, p := range b.procs[key] {
		if sameTarget(m, p.target) {
			return p
		}
	}
	if b.maxProcs > 0 && b.n >= b.maxProcs {
		b.others[key] = struct{}{}
		return nil
	}
	// A target that exports informtop's series is being scraped, whatever
	// up said (or if up was not asked, as in a federation).
	p := &procAcc{target: target(m), up: true, informers: map[string]*informerAcc{}}
	b.procs[key] = append(b.procs[key], p)
	b.n++
	return p
}

// admit keeps the first maxProcs targets by name of those the up answer
// listed, and no more from then on: the others' series are skipped. A
// target up did not list (a federation's) is kept while there is room.
func (b *build) admit(maxProcs int) {
	b.maxProcs = maxProcs
	if maxProcs <= 0 || b.n <= maxProcs {
		return
	}
	accs, _ := b.ordered()
	for _, a := range accs[maxProcs:] {
		key := targetHash(a.target)
		b.procs[key] = slices.DeleteFunc(b.procs[key], func(p *procAcc) bool { return p == a })
		if len(b.procs[key]) == 0 {
			delete(b.procs, key)
		}
		b.others[key] = struct{}{}
	}
	b.n = maxProcs
}

// addUp records a target's up series.
func (b *build) addUp(m labels, v float64) {
	if p := b.proc(m); p != nil {
		p.up = v == 1
	}
}

// addPprof records the up series of a target that exports client-go's
// workqueue_* series but none of informtop's.
func (b *build) addPprof(m labels, v float64) {
	if p := b.proc(m); p != nil {
		p.up, p.pprof = v == 1, true
	}
}

// add records one series of f.
func (b *build) add(f family, m labels, v float64) {
	p := b.proc(m)
	if p == nil {
		return
	}
	name := m["name"]
	a := p.informers[name]
	if a == nil {
		a = &informerAcc{listeners: map[string]*listenerAcc{}}
		a.inf.Resource = m["resource"]
		a.inf.Group, a.inf.Version = m["group"], m["version"]
		p.informers[name] = a
	}
	if f.informer != nil {
		f.informer(a, v)
		return
	}
	ln := m["listener"]
	l := a.listeners[ln]
	if l == nil {
		l = &listenerAcc{l: source.Listener{Name: ln}}
		a.listeners[ln] = l
	}
	f.listener(l, v, m)
}

// finish turns the answers into the frame's processes and informers:
// processes in name order, each one's informers in name order under the
// process's name. At most maxProcs processes are kept, the first by name;
// cut says how many there were when more.
func (b *build) finish(maxProcs int) (procs []source.Process, snaps []source.Informer, total int) {
	accs, ps := b.ordered()
	total = len(accs) + len(b.others)
	if maxProcs > 0 && len(accs) > maxProcs {
		accs, ps = accs[:maxProcs], ps[:maxProcs]
	}
	seen := map[string]int{}
	for i, a := range accs {
		p := ps[i]
		prefix := p.Name()
		if seen[prefix]++; seen[prefix] > 1 {
			// Two targets alike in name that differ in another label
			// than the cluster's: number the later ones.
			prefix += " #" + strconv.Itoa(seen[prefix])
		}
		for _, name := range slices.Sorted(maps.Keys(a.informers)) {
			inf := b.informer(prefix, name, a.informers[name])
			p.Informers = append(p.Informers, inf.Name)
			snaps = append(snaps, inf)
		}
		if p.Informers == nil {
			p.Informers = []string{}
		}
		procs = append(procs, p)
	}
	return procs, snaps, total
}

// ordered is the targets and their processes in name order (then by
// labels, so targets alike in name sort the same way every time).
func (b *build) ordered() ([]*procAcc, []source.Process) {
	var accs []*procAcc
	for _, bucket := range b.procs {
		accs = append(accs, bucket...)
	}
	ps := make([]source.Process, len(accs))
	names, keys := make([]string, len(accs)), make([]string, len(accs))
	for i, a := range accs {
		ps[i] = b.process(a)
		names[i], keys[i] = ps[i].Name(), labelsKey(a.target)
	}
	idx := make([]int, len(accs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(i, j int) int {
		return cmp.Or(strings.Compare(names[i], names[j]), strings.Compare(keys[i], keys[j]))
	})
	sortedAccs, sortedPs := make([]*procAcc, len(idx)), make([]source.Process, len(idx))
	for k, i := range idx {
		sortedAccs[k], sortedPs[k] = accs[i], ps[i]
	}
	return sortedAccs, sortedPs
}

// labelsKey is t as one string, its labels in name order, so targets
// alike in name sort the same way every time.
func labelsKey(t labels) string {
	var sb strings.Builder
	for _, k := range slices.Sorted(maps.Keys(t)) {
		sb.WriteString(k)
		sb.WriteByte('=')
		sb.WriteString(strconv.Quote(t[k]))
		sb.WriteByte(',')
	}
	return sb.String()
}

// process is a target's Process, without its informers.
func (b *build) process(a *procAcc) source.Process {
	p := source.Process{Job: a.target["job"], Instance: a.target["instance"], Up: a.up}
	for k, v := range a.target {
		if k == "job" || k == "instance" {
			continue
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
	}
	p.Cluster = a.target[b.clusterLabel]
	p.Agent = a.target[b.agentLabel]
	p.Pprof = a.pprof
	return p
}

// informer is one informer as the model has it, named "process · name".
func (b *build) informer(prefix, name string, a *informerAcc) source.Informer {
	at := b.at
	s := a.inf
	s.Name = prefix + " · " + name
	s.Taken, s.Started = at, true
	if !a.queueKnown {
		// The agent exports no queue, no memory estimate and no buffer
		// capacity for client-go's own informer, which keeps them to
		// itself: read as that, the views say they are unknown rather
		// than show zeros.
		s.Implementation = source.ImplementationClientGo
	}
	// The queue's initial list was processed once the informer synced.
	s.Queue.Synced = s.Synced
	// Prometheus has no series for the watch; the agent's silent flag
	// says when it is not delivering, so the watch counts as open unless
	// the flag can only come from a watch that is not, or one past the
	// timeout it asked for (silent sooner than a watch with no known
	// timeout can be), and FreshnessOf then agrees with the flag.
	s.Reflector.WatchOpen = true
	if a.quietKnown {
		heard := at.Add(-seconds(a.quiet))
		s.Reflector.LastHeard, s.Reflector.LastEventTime = heard, heard
		if a.silent && seconds(a.quiet) <= source.QuietWatchSilentAfter {
			s.Reflector.WatchOpen = false
		}
	}
	if a.queueAge > 0 && s.Queue.Depth > 0 {
		s.Queue.OldestEnqueued = at.Add(-seconds(a.queueAge))
	}
	s.Memory.Objects = s.Store.Objects
	if s.Memory.EstimatedBytes > 0 {
		// The agent sized a sample; how many objects it does not export.
		s.Memory.Sampled = 1
		if s.Store.Objects > 0 {
			s.Memory.BytesPerObject = s.Memory.EstimatedBytes / float64(s.Store.Objects)
		}
	}
	for _, ln := range slices.Sorted(maps.Keys(a.listeners)) {
		l := a.listeners[ln]
		out := l.l
		// Prometheus carries the agent's figure without saying whose
		// informer it counts, so it is read as the lower bound it is for
		// client-go's own.
		out.PendingEstimated = true
		if l.inCallback > 0 {
			out.InCallback = source.CallbackUnknown
			out.InCallbackSince = at.Add(-seconds(l.inCallback))
			out.Frame = parseFrame(l.frame)
		}
		if l.oldest > 0 {
			out.OldestPendingSince = at.Add(-seconds(l.oldest))
		}
		s.Listeners = append(s.Listeners, out)
	}
	return s
}

func seconds(v float64) time.Duration {
	v = finite(v)
	if v <= 0 {
		return 0
	}
	return time.Duration(min(v, 1e9) * float64(time.Second))
}

// parseFrame reads the agent's frame label, "function (file:line)" as
// source.StackFrame.String writes it; nil when it is empty or not that.
func parseFrame(s string) *source.StackFrame {
	open := strings.LastIndex(s, " (")
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return nil
	}
	where := s[open+2 : len(s)-1]
	colon := strings.LastIndexByte(where, ':')
	if colon <= 0 {
		return nil
	}
	line, err := strconv.Atoi(where[colon+1:])
	if err != nil || line < 0 {
		return nil
	}
	return &source.StackFrame{Function: s[:open], File: where[:colon], Line: line}
}

// cutNote says that a fleet was cut to n processes of total.
func cutNote(n, total int) string {
	return fmt.Sprintf("showing %d of %d processes (the first by name): narrow --selector to see the others", n, total)
}
