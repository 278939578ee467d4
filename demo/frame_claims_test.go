package demo

import (
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// Every note a scenario shows is read off the real dashboard at 80×24 (and
// 160×48) right after it appears: the note is there whole, every view it
// names by number is that view, every informer it names is drawn, and what
// it claims is on the screen beside it (frameClaims).

// frameClaim checks one note's claim against its frames; it explains what
// the screen lacks.
type frameClaim func(f noteFrames) error

func TestEveryNoteIsTrueOnItsScreen(t *testing.T) {
	for _, name := range scenarioNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			checkNotesOnScreen(t, Config{Scenario: name, Seed: 3, TimeScale: 0.05, Objects: frameObjects(name)}, frameClaims[name])
		})
	}
}

// Every scenario that takes --queue, run with DeltaFIFO: the notes that
// differ with it say so (deltaFIFOClaims), and the rest must hold as they
// are. fifo-compare runs both queues whatever --queue says.
func TestEveryDeltaFIFONoteIsTrueOnItsScreen(t *testing.T) {
	for _, name := range scenarioNames() {
		if name == "fifo-compare" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			claims := maps.Clone(frameClaims[name])
			maps.Copy(claims, deltaFIFOClaims[name])
			checkNotesOnScreen(t, Config{Scenario: name, Seed: 3, TimeScale: 0.05, Objects: frameObjects(name), Queue: source.DeltaFIFO}, claims)
		})
	}
}

// checkNotesOnScreen runs a scenario on the real dashboard and checks
// every note it shows against its frames: the generic claims and the
// step's own.
func checkNotesOnScreen(t *testing.T, cfg Config, claims map[string]frameClaim) {
	d := newDemo(t, cfg)
	// The informers of the first one's resource, which the Pipeline can
	// draw side by side.
	var peers []string
	for _, e := range d.Informers() {
		if e.Resource() == d.Informers()[0].Resource() {
			peers = append(peers, e.Name())
		}
	}
	name := cfg.Scenario
	seen := map[string]bool{}
	for _, f := range runFrames(t, d) {
		seen[f.step] = true
		for _, err := range genericClaims(f, peers) {
			t.Errorf("%s, note of step %q: %v", name, f.step, err)
		}
		if c := claims[f.step]; c != nil {
			if err := c(f); err != nil {
				t.Errorf("%s, note of step %q: %v\n%s", name, f.step, err, f.dump())
			}
		}
	}
	for step := range claims {
		if !seen[step] {
			t.Errorf("%s: step %q showed no note, so its claim was not checked", name, step)
		}
	}
}

// deltaFIFOClaims replace frameClaims' for the steps whose note differs
// with --queue DeltaFIFO.
var deltaFIFOClaims = map[string]map[string]frameClaim{
	"steady": {
		"tour: pipeline": func(f noteFrames) error {
			return all(contains(f.views[0], "Reflector"), matches(f.views[0], `Queue +DeltaFIFO · depth \d`),
				contains(f.views[0], "Indexer"), contains(f.views[0], "Processor"))
		},
	},
	"burst": {
		// Three rows, each holding hundreds of Updated deltas, on the
		// Queue view at 80×24: the background is held while paused.
		"burst": func(f noteFrames) error {
			if n := len(regexp.MustCompile(`Updated×[1-9]\d\d`).FindAllString(f.views[1], -1)); n != 3 {
				return fmt.Errorf("%d rows with hundreds of Updated deltas on the Queue view, not three", n)
			}
			return matches(f.views[1], `DeltaFIFO · 3 rows`)
		},
	},
}

// dump is the screens of a failed claim, for the log.
func (f noteFrames) dump() string {
	var b strings.Builder
	for i, v := range f.views {
		fmt.Fprintf(&b, "--- view %d at 80×24\n%s\n", i+1, v)
	}
	fmt.Fprintf(&b, "--- view 1 at 160×48\n%s\n", f.wide[0])
	return b.String()
}

var viewNumbers = map[string]int{"Pipeline": 1, "Queue": 2, "Listeners": 3, "Store": 4, "Events": 5}

var (
	viewRef  = regexp.MustCompile(`(Pipeline|Queue|Listeners|Store|Events) view \(?(\d)\)?`)
	stageRef = regexp.MustCompile(`(API server|Reflector|Queue|Indexer|Processor|Pipeline) stage \((\d)\)`)
)

// genericClaims holds for every note: shown whole at both sizes, views
// named by their real numbers, the informers it names drawn.
func genericClaims(f noteFrames, peers []string) []error {
	var errs []error
	for _, line := range f.script {
		for size, screen := range map[string]string{"80×24": f.views[0], "160×48": f.wide[0]} {
			if !strings.Contains(squeeze(screen), squeeze(line)) {
				errs = append(errs, fmt.Errorf("at %s the note is not shown whole: %q\n%s", size, line, screen))
			}
		}
	}
	text := strings.Join(f.script, "\n")
	for _, m := range viewRef.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		if viewNumbers[m[1]] != n {
			errs = append(errs, fmt.Errorf("%q: the %s view is %d", m[0], m[1], viewNumbers[m[1]]))
			continue
		}
		if !strings.Contains(tabLine(f.views[n-1]), "› "+m[1]) {
			errs = append(errs, fmt.Errorf("%q: key %d shows\n%s", m[0], n, f.views[n-1]))
		}
	}
	for _, m := range stageRef.FindAllStringSubmatch(text, -1) {
		if m[2] != "1" {
			errs = append(errs, fmt.Errorf("%q: stages are in the Pipeline view, 1", m[0]))
		}
	}
	// Each informer the note names is drawn: at 80 columns as the current
	// one or a line of its own, at 160 as a column while columns fit.
	named := namedIn(text, peers)
	for _, name := range named {
		if !drawn80(f.views[0], name) {
			errs = append(errs, fmt.Errorf("the note names %s, which view 1 at 80×24 does not draw:\n%s", name, f.views[0]))
		}
	}
	// Two columns fit at 160: as many of those named are drawn.
	drawn := 0
	for _, name := range named {
		if drawn160(f.wide[0], name) {
			drawn++
		}
	}
	if drawn < min(len(named), 2) {
		errs = append(errs, fmt.Errorf("the note names %s, of which view 1 at 160×48 draws %d:\n%s", named, drawn, f.wide[0]))
	}
	return errs
}

// squeeze drops every space and line break, so wrapped text compares
// with the line it came from.
func squeeze(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// tabLine is the line of view tabs and the breadcrumb.
func tabLine(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "1 Pipe") {
			return l
		}
	}
	return ""
}

// namedIn is the informers text names as whole words, in the order of
// the informers.
func namedIn(text string, informers []string) []string {
	var out []string
	for _, n := range informers {
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(n) + `($|[^A-Za-z0-9_-])`)
		if re.MatchString(text) {
			out = append(out, n)
		}
	}
	return out
}

// drawn80 reports name as the informer shown (the header's) or a peer line.
func drawn80(screen, name string) bool {
	lines := strings.Split(screen, "\n")
	// The header leads with the current informer as k9s says where it
	// is: "pods(shop)[42]".
	if strings.HasPrefix(lines[0], "informtop · "+name+"(") {
		return true
	}
	return strings.Contains(screen, "▸ "+name+" · ")
}

// drawn160 reports name as a column's title, or the only informer shown.
func drawn160(screen, name string) bool {
	return strings.Contains(screen, " "+name+" · ") && !strings.Contains(screen, "also on") ||
		strings.Contains(screen, "▸ "+name+" · ")
}

// Predicates over one screen.

// row is the fields of the first table or tree line naming name, with
// the branch and mark glyphs left out; nil if none does.
func row(screen, name string) []string {
	for _, l := range strings.Split(screen, "\n") {
		var fs []string
		for _, f := range strings.Fields(l) {
			switch f {
			case "├─▶", "└─▶", "⚠", "▸", ">":
				continue
			}
			fs = append(fs, f)
		}
		if len(fs) > 0 && fs[0] == name {
			return fs
		}
	}
	return nil
}

// column is the value in the named column of a listener's row in the
// Listeners view, read at the title's place (numbers are right-aligned
// under their titles); "" if either is not on screen.
func column(screen, listener, title string) string {
	lines := strings.Split(screen, "\n")
	var head []rune
	for _, l := range lines {
		if strings.HasPrefix(l, "LISTENER") {
			head = []rune(l)
		}
	}
	at := strings.Index(string(head), " "+title+" ")
	if head == nil || at < 0 {
		return ""
	}
	start := len([]rune(string(head)[:at])) + 1
	end := start + len([]rune(title))
	for _, l := range lines {
		if fs := row(l, listener); fs != nil && !strings.HasPrefix(l, "LISTENER") && !strings.Contains(l, "─▶") {
			r := []rune(l)
			lo := start
			for lo > 0 && lo-1 < len(r) && r[lo-1] != ' ' {
				lo-- // a number wider than its title
			}
			if end > len(r) {
				return ""
			}
			return strings.TrimSpace(string(r[lo:end]))
		}
	}
	return ""
}

func contains(screen, what string) error {
	if !strings.Contains(screen, what) {
		return fmt.Errorf("%q is not on screen", what)
	}
	return nil
}

func matches(screen, re string) error {
	if !regexp.MustCompile(re).MatchString(screen) {
		return fmt.Errorf("nothing on screen matches %s", re)
	}
	return nil
}

func all(errs ...error) error {
	var msgs []string
	for _, e := range errs {
		if e != nil {
			msgs = append(msgs, e.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// number reads a figure as drawn ("1,024") as an int; -1 if it is none.
func number(s string) int {
	n, err := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	if err != nil {
		return -1
	}
	return n
}

// listenerRows checks each listener's row in the Listeners view with ok.
func listenerRows(screen string, names []string, ok func(fs []string) error) error {
	var errs []error
	for _, n := range names {
		fs := row(screen, n)
		if fs == nil {
			errs = append(errs, fmt.Errorf("no row for %s", n))
			continue
		}
		if err := ok(fs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", n, err))
		}
	}
	return all(errs...)
}

// pendingZero: the row's PENDING (its second field) reads 0.
func pendingZero(fs []string) error {
	if len(fs) < 2 || fs[1] != "0" {
		return fmt.Errorf("pending reads %v", fs)
	}
	return nil
}

// sameColumn: every listener reads the same, present value in a column.
func sameColumn(screen, title string, names ...string) error {
	first := ""
	for i, n := range names {
		v := column(screen, n, title)
		if v == "" {
			return fmt.Errorf("no %s for %s on screen", title, n)
		}
		if i == 0 {
			first = v
		} else if v != first {
			return fmt.Errorf("%s: %s reads %s, %s %s", title, n, v, names[0], first)
		}
	}
	return nil
}

// noteNumber reads the first number after prefix in the note's lines.
func (f noteFrames) noteNumber(prefix string) int {
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `([0-9,]+)`)
	for _, l := range f.script {
		if m := re.FindStringSubmatch(l); m != nil {
			return number(m[1])
		}
	}
	return -1
}

// peerRV is the resourceVersion a peer line or column title area shows
// for an informer at 80×24; -1 if none.
func peerRV(screen, name string) int {
	re := regexp.MustCompile(`▸ ` + regexp.QuoteMeta(name) + ` · RV ([0-9]+)`)
	if m := re.FindStringSubmatch(screen); m != nil {
		return number(m[1])
	}
	return -1
}

var (
	standard = []string{"fast", "medium", "slow"}
	header   = func(f noteFrames) string { return strings.SplitN(f.views[0], "\n", 2)[0] }
)

// frameClaims are, per scenario and step, what each note claims, read off
// its screens at 80×24.
var frameClaims = map[string]map[string]frameClaim{
	"steady": {
		"tour: pipeline": func(f noteFrames) error {
			return all(contains(f.views[0], "Reflector"), matches(f.views[0], `Queue +RealFIFO · depth \d`),
				contains(f.views[0], "Indexer"), contains(f.views[0], "Processor"))
		},
		"tour: listeners": func(f noteFrames) error {
			return listenerRows(f.views[2], standard, func([]string) error { return nil })
		},
		"tour: store": func(f noteFrames) error {
			return all(matches(f.views[3], `\d+ objects`), matches(f.views[3], `(?m)^ *[a-z-]+/[a-z0-9-]+`),
				contains(f.views[0], "informers 4/4 synced"))
		},
		"tour: faults": func(f noteFrames) error {
			return all(contains(f.views[4], "as narrated: WatchClose, WatchOpen, Relist, Stalled"), contains(f.views[2], "TOMB"))
		},
	},
	"burst": {
		"intro": func(f noteFrames) error {
			return listenerRows(f.views[2], standard, func([]string) error { return nil })
		},
		"pause processing": func(f noteFrames) error { return contains(header(f), "paused") },
		"burst": func(f noteFrames) error {
			// The background is held while paused: the burst alone.
			return matches(f.views[0], `depth 1,000\b`)
		},
		"resume processing": func(f noteFrames) error {
			return all(contains(f.views[0], "depth 0"), listenerRows(f.views[2], []string{"slow"}, func(fs []string) error {
				if number(fs[1]) < 100 {
					return fmt.Errorf("a backlog of %s, not about 1,000", fs[1])
				}
				return nil
			}))
		},
		"drained": func(f noteFrames) error {
			return all(listenerRows(f.views[2], standard, pendingZero), sameColumn(f.views[2], "DELIVERED", standard...))
		},
	},
	"stalled-listener": {
		"stall slow": func(f noteFrames) error {
			return all(listenerRows(f.views[2], []string{"slow"}, func(fs []string) error {
				if !strings.HasPrefix(strings.Join(fs, " "), "slow") || !regexp.MustCompile(`(On)?(Add|Update|Delete) `).MatchString(strings.Join(fs, " ")) {
					return fmt.Errorf("not in a callback: %v", fs)
				}
				return nil
			}), listenerRows(f.views[2], []string{"fast", "medium"}, func([]string) error { return nil }))
		},
		"resume slow": func(f noteFrames) error {
			for _, v := range []string{f.views[0], f.views[2]} {
				if fs := row(v, "slow"); fs == nil || strings.Contains(strings.Join(fs, " "), "STALLED") {
					return fmt.Errorf("slow reads %v after its callback returned", fs)
				}
			}
			return nil
		},
		"drained": func(f noteFrames) error {
			return all(listenerRows(f.views[2], standard, pendingZero), sameColumn(f.views[2], "DELIVERED", standard...))
		},
	},
	"watch-drop": {
		"intro": func(f noteFrames) error { return contains(header(f), "watch up") },
		"drop watch": func(f noteFrames) error {
			return all(matches(f.views[4], `WatchClose[^\n]*\n[^\n]*WatchOpen`), contains(f.views[0], "1 list "))
		},
		"server down": func(f noteFrames) error {
			return all(contains(header(f), "watch down"), contains(f.views[4], "WatchError"))
		},
		"server up": func(f noteFrames) error { return contains(header(f), "watch down") },
		"recovered": func(f noteFrames) error {
			return all(contains(header(f), "watch up"), contains(f.views[0], "0 relists"))
		},
	},
	"expired": {
		"server down": func(f noteFrames) error { return contains(header(f), "watch down") },
		"server up":   func(f noteFrames) error { return contains(header(f), "watch down") },
		"gone": func(f noteFrames) error {
			return all(matches(f.views[4], `WatchError +[^\n]*410`), contains(f.views[0], "410 Gone"))
		},
		"relisted": func(f noteFrames) error {
			return all(matches(f.views[0], `(?m)1 relist( |$)`), listenerRows(f.views[2], standard, func(fs []string) error { return nil }),
				tombstones(f.views[2], 1, standard...))
		},
	},
	"fifo-compare": {
		"pause": func(f noteFrames) error { return contains(header(f), "paused") },
		"burst": func(f noteFrames) error {
			return all(contains(f.wide[1], "pods-deltafifo"), contains(f.wide[1], "pods-realfifo"),
				contains(f.views[1], "DeltaFIFO · 3 rows · 500 deltas"), contains(f.wide[0], "pods-realfifo 500 rows for 500 deltas"))
		},
		"drained": func(f noteFrames) error {
			return listenerRows(f.views[2], []string{"fast", "slow"}, pendingZero)
		},
	},
	"initial-sync": {
		"informer synced": func(f noteFrames) error { return contains(f.views[2], "SYNC") },
		"listeners synced": func(f noteFrames) error {
			return matches(header(f)+f.views[0], `handlers (\d+)/(\d+) synced`)
		},
		"late listener": func(f noteFrames) error {
			return listenerRows(f.views[2], []string{"late"}, func([]string) error { return nil })
		},
		"late listener synced": func(f noteFrames) error {
			return listenerRows(f.views[2], []string{"late"}, func(fs []string) error {
				if !strings.Contains(strings.Join(fs, " "), "✓") {
					return fmt.Errorf("not synced: %v", fs)
				}
				return nil
			})
		},
	},
	"mutating-handler": {
		"intro": func(f noteFrames) error {
			return listenerRows(f.views[2], []string{"fast", "medium", "labeler"}, func([]string) error { return nil })
		},
		"mutate": func(f noteFrames) error {
			mut := column(f.views[2], "labeler", "MUT")
			if number(mut) < 1 {
				return fmt.Errorf("labeler's MUT reads %q", mut)
			}
			return contains(f.views[4], "CacheMutation")
		},
	},
	"resync": {
		"intro": func(f noteFrames) error {
			return listenerRows(f.views[2], []string{"resync-1s", "resync-3s", "no-resync"}, func([]string) error { return nil })
		},
		"what a sync is": func(f noteFrames) error {
			return all(contains(f.views[4], "Resync "), contains(f.views[4], "OnUpdate (sync)"))
		},
	},
	"slow-watcher": {
		"intro": func(f noteFrames) error { return matches(f.views[0], `cache \d+–\d+`) },
		"stall": func(f noteFrames) error { return contains(f.views[0], "1 terminated") },
		"recovered note": func(f noteFrames) error {
			return all(matches(f.views[4], `WatchClose[^\n]*\n[^\n]*WatchOpen`), contains(f.views[0], "1 list "))
		},
		"window moved": func(f noteFrames) error {
			return contains(f.views[0], fmt.Sprintf("%d terminated", f.noteNumber("terminated watchers: ")))
		},
		"relisted note": func(f noteFrames) error {
			return all(contains(f.views[4], "410"), contains(f.views[4], "Relist"), tombstones(f.views[2], 1, standard...))
		},
	},
	"watch-cache-window": {
		"intro": func(f noteFrames) error { return matches(f.views[0], `cache \d+–\d+`) },
		"quiet note": func(f noteFrames) error {
			return all(atLeastRV(f.views[0], "quiet", f.noteNumber("moved it to RV ")),
				exactRV(f.views[0], "quiet-no-bookmarks", f.noteNumber("still stands at RV ")))
		},
		"relisted": func(f noteFrames) error { return matches(f.views[0], `▸ quiet-no-bookmarks ·[^\n]*1 relist`) },
		"away":     func(f noteFrames) error { return contains(header(f), "watch down") },
		"back note": func(f noteFrames) error {
			return all(contains(f.views[4], "410"), tombstones(f.views[2], 1, "fast", "slow"))
		},
	},
	"bookmarks": {
		"bookmarked": func(f noteFrames) error {
			return all(atLeastRV(f.views[0], "quiet", f.noteNumber(" to ")), contains(f.views[4], "Bookmark"))
		},
		"burst note": func(f noteFrames) error {
			return all(matches(f.views[0], `cache \d+–\d+`), atLeastRV(f.views[0], "quiet", f.noteNumber("quiet followed on bookmarks to RV ")),
				exactRV(f.views[0], "quiet-no-bookmarks", f.noteNumber("quiet-no-bookmarks is still at RV ")))
		},
		"relisted": func(f noteFrames) error { return matches(f.views[0], `▸ quiet-no-bookmarks ·[^\n]*1 relist`) },
	},
}

// tombstones: each listener's TOMB reads at least n.
func tombstones(screen string, n int, names ...string) error {
	for _, l := range names {
		v := column(screen, l, "TOMB")
		if number(v) < max(n, 1) {
			return fmt.Errorf("%s's TOMB reads %q, want at least %d", l, v, max(n, 1))
		}
	}
	return nil
}

func atLeastRV(screen, name string, rv int) error {
	if got := peerRV(screen, name); got < rv || rv < 0 {
		return fmt.Errorf("%s's line reads RV %d, the note %d", name, got, rv)
	}
	return nil
}

func exactRV(screen, name string, rv int) error {
	if got := peerRV(screen, name); got != rv {
		return fmt.Errorf("%s's line reads RV %d, the note %d", name, got, rv)
	}
	return nil
}
