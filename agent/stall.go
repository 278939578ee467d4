package agent

import (
	"bufio"
	"bytes"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/source"
)

// stalledCall is a call the watchdog found running too long.
type stalledCall struct {
	p     *probe
	call  uint8
	obj   any
	since time.Time
}

// inspect dates the running informers' watch events, logs client-go's
// informers syncing (its own logs say so, its events do not), and reports the
// calls that started more than source.StallAfter before now: one
// goroutine dump names the code each is stuck in, then a Stalled event
// each. It allocates nothing when it finds none.
func (s *Set) inspect(now time.Time) {
	cutoff := now.Add(-source.StallAfter)
	var found []stalledCall
	for _, w := range s.informers() {
		w.upkeep(now)
		if w.observed != nil && !w.syncLogged.Load() && w.HasSynced() {
			w.syncLogged.Store(true)
			w.ring.Emit(instr.Event{Type: pipeline.EventSynced, Time: now, Informer: w.name})
		}
		w.mu.Lock()
		for _, p := range w.probes {
			if call, obj, since, ok := p.stall(cutoff); ok {
				found = append(found, stalledCall{p, call, obj, since})
			}
		}
		w.mu.Unlock()
	}
	if len(found) == 0 {
		return
	}
	ids := make(map[string]bool, len(found))
	for _, c := range found {
		ids[c.p.id] = true
	}
	frames := stuckFrames(ids)
	for _, c := range found {
		e := instr.Event{Type: pipeline.EventStalled, Time: now, Informer: c.p.inf.name, Listener: c.p.name, Detail: callbackName(c.call), Duration: now.Sub(c.since), Obj: c.obj}
		if f, ok := frames[c.p.id]; ok {
			c.p.caught(&f)
			e.Frame = f.String()
		}
		c.p.inf.ring.Emit(e)
	}
}

// stuckFrames dumps every goroutine's stack and returns, for each
// goroutine labelled with one of ids, the frame its user is to read.
func stuckFrames(ids map[string]bool) map[string]source.StackFrame {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		return nil
	}
	return framesIn(buf.Bytes(), ids)
}

// framesIn reads a goroutine profile written with debug=1: records of
// "N @ pc pc …", then an optional "# labels: {…}" line and the frames,
// separated by blank lines. The frames are resolved here from the
// program counters, inlined calls included (the printed lines leave them
// out), innermost first.
func framesIn(profile []byte, ids map[string]bool) map[string]source.StackFrame {
	out := make(map[string]source.StackFrame)
	var pcs []uintptr
	sc := bufio.NewScanner(bytes.NewReader(profile))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if _, stack, ok := strings.Cut(line, " @ "); ok && !strings.HasPrefix(line, "#") {
			pcs = pcs[:0]
			for _, f := range strings.Fields(stack) {
				if pc, err := strconv.ParseUint(f, 0, 64); err == nil {
					pcs = append(pcs, uintptr(pc))
				}
			}
			continue
		}
		if !strings.HasPrefix(line, "# labels: ") {
			continue
		}
		id := labelValue(line, stackLabel)
		if !ids[id] {
			continue
		}
		if f, ok := firstUserFrame(pcs); ok {
			out[id] = f
		}
	}
	return out
}

// labelValue is the value of key in a "# labels: {"k":"v", …}" line.
func labelValue(line, key string) string {
	marker := strconv.Quote(key) + ":"
	i := strings.Index(line, marker)
	if i < 0 {
		return ""
	}
	v, err := strconv.QuotedPrefix(line[i+len(marker):])
	if err != nil {
		return ""
	}
	s, _ := strconv.Unquote(v)
	return s
}

// firstUserFrame is the innermost frame of a stack (return addresses, as
// a profile records them) in the user's code.
func firstUserFrame(pcs []uintptr) (source.StackFrame, bool) {
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function != "" && userCode(f.Function) {
			return source.StackFrame{Function: f.Function, File: f.File, Line: f.Line}, true
		}
		if !more {
			return source.StackFrame{}, false
		}
	}
}

// frameworks are the packages between an informer and its user's code:
// their frames are skipped to reach the user's.
var frameworks = []string{
	"k8s.io/client-go/",
	"k8s.io/apimachinery/",
	"k8s.io/utils/",
	"k8s.io/klog/",
	"sigs.k8s.io/controller-runtime/",
	"github.com/informtop/informtop/agent.",
}

// userCode says whether fn (a function's full name) is neither the Go
// runtime or standard library (a package path whose first element has no
// dot, main aside) nor one of the frameworks.
func userCode(fn string) bool {
	pkg := fn
	if slash := strings.LastIndexByte(pkg, '/'); slash >= 0 {
		if dot := strings.IndexByte(pkg[slash:], '.'); dot >= 0 {
			pkg = pkg[:slash+dot]
		}
	} else if dot := strings.IndexByte(pkg, '.'); dot >= 0 {
		pkg = pkg[:dot]
	}
	first, _, _ := strings.Cut(pkg, "/")
	if !strings.Contains(first, ".") && first != "main" {
		return false
	}
	for _, f := range frameworks {
		if strings.HasPrefix(fn, f) {
			return false
		}
	}
	return true
}
