package tui

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/informtop/informtop/agent/source"

	"k8s.io/apimachinery/pkg/labels"
)

// filterMode is how a "/" query is read, as k9s reads its filter: plain
// text is a case-insensitive regular expression (refused when it is not
// a valid one), "-f TEXT" is fuzzy, "-l SELECTOR" a label selector,
// and in the Events view "type:X key:Y listener:Z" pick fields.
type filterMode int

const (
	filterNone filterMode = iota
	filterText
	filterFuzzy
	filterLabels
	filterFields
)

// filterSpec is one parsed query. err is a sentence for the filter line
// when the query cannot be used; a spec with err matches nothing.
type filterSpec struct {
	mode   filterMode
	raw    string
	re     *regexp.Regexp // filterText, and free text in filterFields
	sub    string         // lowered literal when the text has no regexp syntax
	fuzzy  string
	sel    labels.Selector
	fields map[string]string // lowered field → lowered value
	err    string
}

// filterWhere says which extra forms a view accepts.
type filterWhere struct {
	labels bool // the Store view: -l SELECTOR
	fields bool // the Events view: type:, key:, listener:, informer:
}

// eventFields are the field names the Events view filters on.
var eventFields = []string{"type", "key", "listener", "informer"}

// parseFilter reads q; it never panics and says what is wrong in err.
func parseFilter(q string, where filterWhere) filterSpec {
	q = strings.TrimSpace(q)
	s := filterSpec{raw: q}
	switch {
	case q == "":
		return s
	case q == "-f" || strings.HasPrefix(q, "-f "):
		s.mode, s.fuzzy = filterFuzzy, strings.TrimSpace(strings.TrimPrefix(q, "-f"))
		if s.fuzzy == "" {
			s.mode = filterNone
		}
		return s
	case q == "-l" || strings.HasPrefix(q, "-l "):
		s.mode = filterLabels
		expr := strings.TrimSpace(strings.TrimPrefix(q, "-l"))
		if !where.labels {
			s.err = "-l filters by label, and only the Store view (4) shows labels"
			return s
		}
		if expr == "" {
			s.mode = filterNone
			return s
		}
		sel, err := labels.Parse(expr)
		if err != nil {
			s.err = "not a label selector (" + safe(err.Error()) + "); try -l app=web,tier!=db"
			return s
		}
		s.sel = sel
		return s
	}
	if where.fields && hasField(q) {
		return parseFields(q)
	}
	s.mode = filterText
	// "/^default/" typed after the "/" that opened the prompt: the slashes
	// delimit the expression, as in k9s's documentation and in sed.
	if len(q) > 2 && strings.HasPrefix(q, "/") && strings.HasSuffix(q, "/") {
		q = q[1 : len(q)-1]
	}
	s.setText(q)
	return s
}

// setText compiles q as a case-insensitive regular expression; text
// without regexp syntax is matched literally, and a broken expression is
// refused with the parser's reason in err. ^ and $ match at each
// line: the Store view searches a key and its labels as two lines, so
// /cm-00009$ finds the key that ends so.
func (s *filterSpec) setText(q string) {
	if regexp.QuoteMeta(q) == q {
		s.sub = strings.ToLower(q)
		return
	}
	re, err := regexp.Compile("(?im)" + q)
	if err != nil {
		// Refused rather than read as text: a typo in a pattern would
		// otherwise match nothing, or the wrong rows, without a word.
		why := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			why = se.Code.String() // its Expr would quote the flags added here
		}
		s.err = "not a regular expression: " + safe(why) + " (a \\ before a character searches for it as it is)"
		return
	}
	s.re = re
}

func hasField(q string) bool {
	for _, w := range strings.Fields(q) {
		if name, _, ok := strings.Cut(w, ":"); ok {
			for _, f := range eventFields {
				if strings.EqualFold(name, f) {
					return true
				}
			}
		}
	}
	return false
}

func parseFields(q string) filterSpec {
	s := filterSpec{raw: q, mode: filterFields, fields: map[string]string{}}
	var free []string
	for _, w := range strings.Fields(q) {
		name, val, ok := strings.Cut(w, ":")
		known := false
		for _, f := range eventFields {
			known = known || strings.EqualFold(name, f)
		}
		if !ok || !known {
			free = append(free, w)
			continue
		}
		name = strings.ToLower(name)
		if val == "" {
			s.err = name + ": needs a value, e.g. " + fieldExample(name)
			return s
		}
		if name == "type" && eventTypeNamed(val) == 0 {
			s.err = fmt.Sprintf("no event type %q; types are %s", val, strings.Join(eventTypeNames(), ", "))
			return s
		}
		s.fields[name] = strings.ToLower(val)
	}
	if len(free) > 0 {
		s.setText(strings.Join(free, " "))
	}
	return s
}

func fieldExample(name string) string {
	switch name {
	case "type":
		return "type:Relist"
	case "key":
		return "key:default/web"
	case "listener":
		return "listener:slow"
	}
	return "informer:pods"
}

// eventTypeNamed finds an event type by name, ignoring case; 0 if none.
func eventTypeNamed(name string) source.EventType {
	for t := source.EventType(1); t.String() != "Unknown"; t++ {
		if strings.EqualFold(t.String(), name) {
			return t
		}
	}
	return 0
}

func eventTypeNames() []string {
	var out []string
	for t := source.EventType(1); t.String() != "Unknown"; t++ {
		out = append(out, t.String())
	}
	return out
}

// active reports a query that filters (a broken one filters everything out).
func (s filterSpec) active() bool { return s.mode != filterNone || s.err != "" }

// matchText reports whether text matches the spec's text part; true when
// it has none.
func (s filterSpec) matchText(text, lower string) bool {
	switch {
	case s.re != nil:
		return s.re.MatchString(text)
	case s.sub != "":
		if lower == "" && text != "" {
			lower = strings.ToLower(text)
		}
		return strings.Contains(lower, s.sub)
	}
	return true
}

// matchFields reports whether one event's fields match a filterFields spec.
func (s filterSpec) matchFields(typ, key, listener, informer string) bool {
	for name, want := range s.fields {
		var got string
		switch name {
		case "type":
			if !strings.EqualFold(typ, want) {
				return false
			}
			continue
		case "key":
			got = key
		case "listener":
			got = listener
		case "informer":
			got = informer
		}
		if !strings.Contains(strings.ToLower(got), want) {
			return false
		}
	}
	return true
}

// textSpan is where the text part matches s, for highlighting; -1 if not.
func (s filterSpec) textSpan(text string) (int, int) {
	switch {
	case s.re != nil:
		if loc := s.re.FindStringIndex(text); loc != nil && loc[1] > loc[0] {
			return loc[0], loc[1]
		}
	case s.sub != "":
		if i := strings.Index(strings.ToLower(text), s.sub); i >= 0 && isASCII(text) {
			return i, i + len(s.sub)
		}
	}
	return -1, -1
}

// describe is the filter line's hint: what kind of filter is in force.
func (s filterSpec) describe() string {
	switch s.mode {
	case filterText:
		if s.re != nil {
			return "regexp"
		}
		return "text"
	case filterFuzzy:
		return "fuzzy"
	case filterLabels:
		return "label selector"
	case filterFields:
		return "fields"
	}
	return ""
}
