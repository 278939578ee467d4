// Command benchratio reads `go test -bench` output on stdin, echoes it, and
// then prints every ours/client-go pair side by side with its ratio, and the
// cost of instrumentation (ours vs ours-uninstrumented). It is what
// `make bench` pipes the engine benchmarks through.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// result holds one benchmark line's metrics by unit (ns/op, B/op, ...).
type result map[string]float64

// runs accumulates repeated lines of one benchmark (go test -count N) so
// the table shows their mean.
type runs struct {
	sum result
	n   int
}

func (r *runs) add(m result) {
	if r.sum == nil {
		r.sum = result{}
	}
	for unit, v := range m {
		r.sum[unit] += v
	}
	r.n++
}

func (r *runs) mean() result {
	out := result{}
	for unit, v := range r.sum {
		out[unit] = v / float64(r.n)
	}
	return out
}

func main() {
	if err := run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer) error {
	acc := map[string]map[string]*runs{} // base name -> variant -> repeated runs
	var order []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(out, line)
		name, variant, metrics, ok := parseLine(line)
		if !ok {
			continue
		}
		if acc[name] == nil {
			acc[name] = map[string]*runs{}
			order = append(order, name)
		}
		if acc[name][variant] == nil {
			acc[name][variant] = &runs{}
		}
		acc[name][variant].add(metrics)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	groups := map[string]map[string]result{}
	for name, variants := range acc {
		groups[name] = map[string]result{}
		for variant, r := range variants {
			groups[name][variant] = r.mean()
		}
	}
	printTable(out, order, groups)
	return nil
}

// parseLine splits "BenchmarkX/objects=10/ours-2  3  123 ns/op  4 B/op" into
// its base name, variant and metrics.
func parseLine(line string) (name, variant string, metrics result, ok bool) {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
		return "", "", nil, false
	}
	full := fields[0]
	if i := strings.LastIndex(full, "-"); i > 0 {
		if _, err := strconv.Atoi(full[i+1:]); err == nil {
			full = full[:i] // drop the GOMAXPROCS suffix
		}
	}
	slash := strings.LastIndex(full, "/")
	if slash < 0 {
		return "", "", nil, false
	}
	name, variant = full[:slash], full[slash+1:]
	metrics = result{}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			break
		}
		metrics[fields[i+1]] = v
	}
	return name, variant, metrics, true
}

// headline picks the metric that matters most for a benchmark.
func headline(r result) string {
	for _, unit := range []string{"B/object", "ns/event", "ms/relist", "ns/op"} {
		if _, ok := r[unit]; ok {
			return unit
		}
	}
	return ""
}

func printTable(out io.Writer, order []string, groups map[string]map[string]result) {
	fmt.Fprintln(out)
	fmt.Fprintf(out, "%-48s %-9s %14s %14s %9s %14s %12s\n", "benchmark", "metric", "ours", "client-go", "cg/ours", "uninstr.", "instr. cost")
	for _, name := range order {
		g := groups[name]
		ours, okOurs := g["ours"]
		cg, okCG := g["client-go"]
		if !okOurs {
			continue
		}
		unit := headline(ours)
		units := []string{unit}
		if _, ok := ours["allocs/op"]; ok {
			units = append(units, "allocs/op")
		}
		for _, u := range units {
			row := fmt.Sprintf("%-48s %-9s %14.0f", name, u, ours[u])
			if okCG {
				row += fmt.Sprintf(" %14.0f %8.2fx", cg[u], cg[u]/ours[u])
			} else {
				row += fmt.Sprintf(" %14s %9s", "-", "-")
			}
			if un, ok := g["ours-uninstrumented"]; ok && u == unit {
				row += fmt.Sprintf(" %14.0f %+11.1f%%", un[u], 100*(ours[u]/un[u]-1))
			}
			fmt.Fprintln(out, row)
		}
	}
	fmt.Fprintln(out, "\nmeans over repeated runs; cg/ours above 1.00x: ours is faster or smaller; instr. cost: ours with instrumentation vs without.")
}
