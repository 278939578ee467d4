package tui

import (
	"regexp"
	"strings"
	"time"

	"charm.land/lipgloss/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// The header's sentences, the source's trouble and why the informer shown
// is not synced, say what happened and what to do, so they are read
// whole: one too long for its place gets lines of its own under the tabs,
// wrapped, and the view below gives up those rows. One that fits stays
// where it is, so a healthy header keeps its three lines.

// sentence is a header sentence and its look.
type sentence struct {
	text  string
	style lipgloss.Style
}

func (s sentence) String() string {
	if s.text == "" {
		return ""
	}
	return s.style.Render(s.text)
}

// sourceTrouble is the source's own trouble (an endpoint gone, another
// version), "" while it is live with nothing to say. Disconnected, it
// names the key that retries at once, where there is one.
func sourceTrouble(c *common) sentence {
	text := briefURLs(say.Status(c.data.status, c.data.updated))
	if text != "" && c.data.status.State == source.Disconnected {
		text += retryKeyHint(c)
	}
	return sentence{text, c.styles.bad}
}

// retryKeyHint is " · ctrl+r retries now" when the source can, "" otherwise.
func retryKeyHint(c *common) string {
	if c.caps.retry == nil || !c.keys.Retry.Enabled() {
		return ""
	}
	return " · " + c.keys.Retry.Help().Key + " retries now"
}

// linkProblem words the link of an informer whose watch is not open after
// a failure, from its state (source.LinkOf): the server refused it,
// answered 410 and a relist waits for client-go's backoff, or was not
// reached; with when client-go tries again, where the source knows.
func linkProblem(c *common, s *source.Informer) string {
	r := s.Reflector
	cause := briefURLs(firstLine(r.LastError)) // the informer's own request: it says which host
	var msg string
	// After a 410 client-go does not try the watch again: it lists anew.
	again := "retries"
	switch source.LinkOf(*s, false) {
	case source.LinkForbidden:
		msg = "forbidden: " + cause
	case source.LinkRelistPending:
		msg = "relist pending: the server answered " + cause
		if source.Expired(r.LastError) {
			msg = "relist pending: the server answered 410 Gone (the resourceVersion is older than its history)"
		}
		again = "lists again"
	default:
		msg = "watch down"
		if !r.LastErrorTime.IsZero() {
			msg += ", last error " + humanize.Duration(since(c.now(), r.LastErrorTime)) + " ago"
		}
		if source.Throttled(r.LastError) {
			// The server answered: client-go watches again from where it
			// was, it does not list.
			cause = say.TurnedAway("watch")
		}
		msg += ": " + strings.TrimSuffix(cause, ".")
	}
	next := time.Time{}
	if c.caps.retry != nil {
		next = c.caps.retry.NextAttempts()[s.Name]
	}
	switch d := next.Sub(c.now()).Round(time.Second); {
	case next.IsZero() && again == "retries":
		msg += "; retrying"
	case next.IsZero():
		msg += "; client-go " + again + " after its backoff"
	case d > 0:
		msg += "; client-go " + again + " within " + d.String()
	default:
		msg += "; client-go " + again + " any moment"
	}
	return msg + retryKeyHint(c)
}

// requestURL is a URL in an error client-go wrote: scheme, host, then its
// path and query, if any.
var requestURL = regexp.MustCompile(`(https?://)([^\s"/?]+)(/[^\s"?]*)?(\?[^\s"]*)?`)

// apiPath is a Kubernetes API path: the prefix (/api/v1, /apis/GROUP/VERSION)
// and namespace that only place the resource, then the resource.
var apiPath = regexp.MustCompile(`^/(?:api/[^/]+|apis/[^/]+/[^/]+)(?:/namespaces/[^/]+)?/([^/]+)`)

// briefURLs says the API requests in an error by their host and resource,
// "127.0.0.1:6443/…/pods": client-go quotes the whole request
// ("https://127.0.0.1:6443/api/v1/namespaces/default/pods?allowWatch
// Bookmarks=true&resourceVersion=…"), which took three rows at 80 columns
// and pushed the view's rows down, and the scheme, path and query say
// nothing the line beside it does not. Another URL with a path keeps it,
// without its query. The Events view keeps the whole error.
func briefURLs(s string) string {
	return requestURL.ReplaceAllStringFunc(s, func(u string) string {
		m := requestURL.FindStringSubmatch(u)
		scheme, host, path, query := m[1], m[2], m[3], m[4]
		if r := apiPath.FindStringSubmatch(path); r != nil {
			return host + "/…/" + r[1]
		}
		if query != "" {
			return scheme + host + path + "?…"
		}
		return u
	})
}

// statusInline reports whether the source's trouble stays on the title
// line: at most half of it, so the informer's name and state still show.
func statusInline(why string, w int) bool { return width(why) <= w/2 }

// statusWord is the source's trouble on the title line when its sentence
// is below: its state in a word ("disconnected").
func statusWord(c *common) string {
	if s := c.data.status.State; s != source.Live && s != "" {
		return c.styles.bad.Render(string(s))
	}
	return ""
}

// informerNote is the trouble of the informer shown: its connection
// problem, why it has not synced, or its silence; "" when it has none.
func informerNote(c *common) sentence {
	st := c.styles
	why := c.data.reasons[c.data.current]
	s := c.data.snap()
	if s != nil {
		if p := connProblem(c, s); p != "" {
			// The source's sentence says what the error means and what
			// to do; the bare problem only when it has none.
			if why != "" {
				return sentence{"✗ not synced: " + briefURLs(why) + retryKeyHint(c), st.bad}
			}
			// A disconnected source has every watch down, and its own
			// sentence already says why.
			if c.data.status.State == source.Disconnected {
				return sentence{}
			}
			return sentence{p, st.bad}
		}
	}
	if why != "" {
		return sentence{"✗ not synced: " + briefURLs(why), st.warn}
	}
	if s != nil {
		// Verify is offered for the informer shown (offerControls).
		if silent := silenceSentence(s, c.keys.Verify.Enabled()); silent != "" {
			return sentence{silent, st.bad}
		}
	}
	return sentence{}
}

// noteInline reports whether the informer's note fits after the tabs on
// a w-cell line.
func noteInline(c *common, views []view, note string, w int) bool {
	return width(headerTabs(c, 0, views, w))+2+width(note) <= w
}

// headerBelow is the lines under the tabs on a w×h terminal: the
// sentences that do not fit in their place, each wrapped, continued lines
// indented. They take at most half the rows under the tabs, so the view
// keeps the other half; past that the last line says it is cut (the
// Events view has the errors in full).
func headerBelow(c *common, views []view, w, h int) []string {
	var lines []string
	add := func(s sentence) {
		for i, l := range wrapText(s.text, max(w-2, 10)) {
			indent := ""
			if i > 0 {
				indent = "  "
			}
			lines = append(lines, s.style.Render(indent+l))
		}
	}
	if why := sourceTrouble(c); why.text != "" && !statusInline(why.text, w) {
		add(why)
	}
	if note := informerNote(c); note.text != "" && !noteInline(c, views, note.text, w) {
		add(note)
	}
	limit := max((h-headerLines-1)/2, 1)
	if len(lines) > limit {
		lines = lines[:limit]
		lines[limit-1] = truncate(lines[limit-1]+" …", w)
	}
	return lines
}

// headerRows is how many rows the header takes on the model's terminal.
func (m *Model) headerRows() int {
	return headerLines + len(headerBelow(m.c, m.views, m.width, m.height))
}

// joinLines puts the lines of more under first.
func joinLines(first string, more []string) string {
	if len(more) == 0 {
		return first
	}
	return first + "\n" + strings.Join(more, "\n")
}

// possessive is "pods'" or "deployment's".
func possessive(name string) string {
	if strings.HasSuffix(name, "s") {
		return name + "'"
	}
	return name + "'s"
}
