package pprof

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// Goroutine is one goroutine of a dump written by runtime/pprof at
// debug=2 (the runtime's own traceback format).
type Goroutine struct {
	ID uint64
	// State is the wait reason or status: "chan receive", "select",
	// "running".
	State string
	// Waiting is how long the goroutine has been blocked, as the runtime
	// prints it: whole minutes, and only from one minute on (0 below).
	Waiting time.Duration
	// Frames are innermost first: Frames[0] is where it is now.
	Frames []Frame
	// CreatedBy is the function whose go statement started it; CreatedIn
	// the goroutine that ran it (0 when the dump does not say, as before
	// Go 1.21).
	CreatedBy string
	CreatedIn uint64
}

// Frame is one line pair of a traceback: the function with its
// arguments, and where in it.
type Frame struct {
	// Function is the fully qualified name, "k8s.io/client-go/tools/cache.(*processorListener).run".
	Function string
	// Args is the argument text between the parentheses, "0xc000123400"
	// or "..." for an inlined call.
	Args string
	File string
	Line int
}

// StackFrame is the frame as the data model holds it.
func (f Frame) StackFrame() source.StackFrame {
	return source.StackFrame{Function: f.Function, File: f.File, Line: f.Line}
}

// maxLine bounds one line of a dump: a frame's arguments are printed up
// to ten words, so lines are short; anything longer is not a dump.
const maxLine = 64 << 10

// ParseDump reads a goroutine dump (debug=2). It skips what it does not
// recognise, so a newer runtime's additions cost only what they say;
// it fails only when the text holds no goroutine header at all.
func ParseDump(r io.Reader) ([]Goroutine, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	var out []Goroutine
	var g *Goroutine
	var pending *Frame // a function line waiting for its file line
	flush := func() {
		if g != nil {
			out = append(out, *g)
		}
		g, pending = nil, nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "goroutine "):
			flush()
			if h, ok := parseHeader(line); ok {
				g = &h
			}
		case g == nil:
		case strings.HasPrefix(line, "\t"):
			if pending != nil {
				pending.File, pending.Line = parseFileLine(strings.TrimSpace(line))
				pending = nil
			}
		case strings.HasPrefix(line, "created by "):
			fn := strings.TrimPrefix(line, "created by ")
			if f, in, ok := strings.Cut(fn, " in goroutine "); ok {
				fn = f
				g.CreatedIn, _ = strconv.ParseUint(strings.TrimSpace(in), 10, 64)
			}
			g.CreatedBy = fn
		case strings.HasPrefix(line, "..."):
			// "...additional frames elided...": the stack's outer end is
			// cut; what is there is still right.
		default:
			fn, args := splitCall(line)
			g.Frames = append(g.Frames, Frame{Function: fn, Args: args})
			pending = &g.Frames[len(g.Frames)-1]
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("the goroutine dump could not be read: %w", err)
	}
	if len(out) == 0 {
		return nil, errNotADump
	}
	return out, nil
}

// errNotADump: the answer had no goroutine in it.
var errNotADump = fmt.Errorf("the answer holds no goroutine: it is not a goroutine dump (debug=2)")

// parseHeader reads "goroutine 34 [chan receive, 3 minutes]:", with
// whatever GOTRACEBACK adds between the number and the bracket.
func parseHeader(line string) (Goroutine, bool) {
	rest := strings.TrimPrefix(line, "goroutine ")
	num, rest, _ := strings.Cut(rest, " ")
	id, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return Goroutine{}, false
	}
	open, end := strings.IndexByte(rest, '['), strings.LastIndexByte(rest, ']')
	if open < 0 || end < open {
		return Goroutine{}, false
	}
	g := Goroutine{ID: id}
	for i, part := range strings.Split(rest[open+1:end], ", ") {
		if i == 0 {
			g.State = part
			continue
		}
		if n, unit, ok := strings.Cut(part, " "); ok && (unit == "minutes" || unit == "minute") {
			if m, err := strconv.Atoi(n); err == nil {
				g.Waiting = time.Duration(m) * time.Minute
			}
		}
	}
	return g, true
}

// splitCall splits "pkg.(*T).m(0x1, {0x2, 0x3})" into the function and
// the argument text; the arguments are the last balanced parentheses.
func splitCall(line string) (fn, args string) {
	if !strings.HasSuffix(line, ")") {
		return line, ""
	}
	depth := 0
	for i := len(line) - 1; i >= 0; i-- {
		switch line[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return line[:i], line[i+1 : len(line)-1]
			}
		}
	}
	return line, ""
}

// parseFileLine reads "path/file.go:123 +0x4c".
func parseFileLine(s string) (string, int) {
	if i := strings.LastIndex(s, " +0x"); i >= 0 {
		s = s[:i]
	}
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return s, 0
	}
	return s[:i], n
}
