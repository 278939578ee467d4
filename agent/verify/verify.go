// Package verify answers "is this cache right?": it lists a resource from
// the API server at exactly the resourceVersion an informer's cache stands
// at (metadata only, paginated) and compares the two key by key. It only
// lists. It imports no UI.
package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// Shown is how many differing keys of each kind a Result names.
const Shown = 20

// attempts bounds retries after the server compacted the cut's version.
const attempts = 3

// Result is one comparison of a cache with the server.
type Result struct {
	// Equal: the cache holds exactly the server's objects at ResourceVersion.
	Equal bool `json:"equal"`
	// ResourceVersion is the version both sides were compared at.
	ResourceVersion string `json:"resourceVersion"`
	// Objects is how many objects the server has at that version.
	Objects int `json:"objects"`
	// Missing are on the server but not in the cache, Extra in the cache
	// but not on the server, Stale in both at different resourceVersions;
	// each sorted, the first Shown of them; the counts are all of them.
	Missing      []string `json:"missing"`
	Extra        []string `json:"extra"`
	Stale        []string `json:"stale"`
	MissingCount int      `json:"missingCount"`
	ExtraCount   int      `json:"extraCount"`
	StaleCount   int      `json:"staleCount"`
	// Retried says why the first versions tried could not be listed (the
	// server had compacted them), "" when the first one could.
	Retried string `json:"retried,omitempty"`
	// Pages is how many LIST requests the comparison took.
	Pages int `json:"pages"`
	// Took is the whole verify, cut and list; Held how long the pipeline
	// waited while the cut was copied.
	Took time.Duration `json:"-"`
	Held time.Duration `json:"-"`
}

// Sentence is the one-line answer.
func (r Result) Sentence() string {
	s := ""
	if r.Equal {
		s = fmt.Sprintf("cache equals the server at RV %s (%s)", r.ResourceVersion, humanize.Plural(r.Objects, "object"))
	} else {
		var parts []string
		for _, p := range []struct {
			n    int
			what string
			keys []string
		}{{r.MissingCount, "missing", r.Missing}, {r.ExtraCount, "extra", r.Extra}, {r.StaleCount, "stale", r.Stale}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s (%s)", p.n, p.what, keyList(p.keys, p.n)))
			}
		}
		s = fmt.Sprintf("cache differs from the server at RV %s: %s", r.ResourceVersion, joinAnd(parts))
	}
	if r.Retried != "" {
		s += "; " + r.Retried
	}
	return s
}

func keyList(keys []string, n int) string {
	const inline = 3
	if len(keys) > inline {
		return fmt.Sprintf("%s, … %d more", strings.Join(keys[:inline], ", "), n-inline)
	}
	return strings.Join(keys, ", ")
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// Lister lists one page of the resource as the informer sees it (its
// namespace and selectors), metadata only.
type Lister func(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error)

// Cut is an informer's cache as one state: every key with its object's
// resourceVersion, at the resourceVersion the cache stands at.
type Cut struct {
	// ResourceVersion is the version the objects stand at.
	ResourceVersion string
	// Objects maps each key to its object's resourceVersion.
	Objects map[string]string
	// Held is how long the pipeline waited while the cut was copied.
	Held time.Duration
}

// Cutter copies the cache as one state (an engine informer's Cut, or an
// attached controller's cut fetched from its agent).
type Cutter func(ctx context.Context) (Cut, error)

// Run takes a cut of the cache, lists the server at the cut's version and
// compares. When the server has compacted that version it takes a newer
// cut and tries again, saying so in Retried.
func Run(ctx context.Context, cut Cutter, list Lister, pageSize int64) (Result, error) {
	began := time.Now()
	var compacted []string
	for range attempts {
		c, err := cut(ctx)
		if err != nil {
			return Result{}, err
		}
		server, pages, err := listAt(ctx, list, c.ResourceVersion, pageSize)
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			compacted = append(compacted, c.ResourceVersion)
			continue
		}
		if err != nil {
			return Result{}, fmt.Errorf("listing at RV %s failed: %w", c.ResourceVersion, err)
		}
		r := Compare(c, server)
		r.Pages, r.Took, r.Held = pages, time.Since(began), c.Held
		if len(compacted) > 0 {
			r.Retried = fmt.Sprintf("the server had compacted RV %s, so this compares at a newer point", strings.Join(compacted, ", "))
		}
		return r, nil
	}
	return Result{}, fmt.Errorf("the server had compacted every version tried (%s) before it could be listed; verify again", strings.Join(compacted, ", "))
}

// progressKey carries a Progress in a context.
type progressKey struct{}

// Progress is told, after each page the server answered, how many pages
// and objects a comparison has listed so far: a big cache takes a hundred
// pages, and a user waiting needs to see them go by.
type Progress func(pages, objects int)

// WithProgress has Run tell p about each page it lists under ctx.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ReportProgress tells the Progress of ctx, if it has one, how far a
// comparison got: Run calls it after each page; other verifiers may too.
func ReportProgress(ctx context.Context, pages, objects int) {
	if p, ok := ctx.Value(progressKey{}).(Progress); ok && p != nil {
		p(pages, objects)
	}
}

// listAt lists every page at exactly rv.
func listAt(ctx context.Context, list Lister, rv string, pageSize int64) (map[string]string, int, error) {
	if pageSize <= 0 {
		pageSize = 500
	}
	out := map[string]string{}
	opts := metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Limit: pageSize}
	for pages := 1; ; pages++ {
		l, err := list(ctx, opts)
		if err != nil {
			return nil, pages, err
		}
		for i := range l.Items {
			m := &l.Items[i]
			key := m.Name
			if m.Namespace != "" {
				key = m.Namespace + "/" + m.Name
			}
			out[key] = m.ResourceVersion
		}
		ReportProgress(ctx, pages, len(out))
		if l.Continue == "" {
			return out, pages, nil
		}
		// A continue token carries the version; the server refuses both.
		opts = metav1.ListOptions{Continue: l.Continue, Limit: pageSize}
	}
}

// Compare compares a cut with the server's objects at the cut's version.
func Compare(c Cut, server map[string]string) Result {
	r := Result{ResourceVersion: c.ResourceVersion, Objects: len(server)}
	var missing, extra, stale []string
	for key, rv := range server {
		cached, ok := c.Objects[key]
		switch {
		case !ok:
			missing = append(missing, key)
		case cached != rv:
			stale = append(stale, key)
		}
	}
	for key := range c.Objects {
		if _, ok := server[key]; !ok {
			extra = append(extra, key)
		}
	}
	r.Missing, r.MissingCount = first(missing)
	r.Extra, r.ExtraCount = first(extra)
	r.Stale, r.StaleCount = first(stale)
	r.Equal = r.MissingCount+r.ExtraCount+r.StaleCount == 0
	return r
}

func first(keys []string) ([]string, int) {
	slices.Sort(keys)
	n := len(keys)
	if keys == nil {
		keys = []string{}
	}
	return keys[:min(n, Shown)], n
}

// ErrNotSupported is returned by sources that cannot verify.
var ErrNotSupported = errors.New("this source cannot verify its caches")
