package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// tableAccept asks the API server to print the object as kubectl get
// does (a meta.k8s.io/v1 Table) rather than send the object itself.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

const (
	// tableInFlight bounds the GETs of rows at once, across informers.
	tableInFlight = 4
	// tableMaxRows bounds the rows kept for one informer; past it the
	// rows of keys not asked for go.
	tableMaxRows = 4096
	// tableQPS and tableBurst replace client-go's default rate limit
	// (5 a second after 10), which would take seconds to fill a page of
	// 40 rows; tableInFlight bounds the load, the server's priority and
	// fairness the rest.
	tableQPS, tableBurst = 50, 100
)

// tables prints cached objects as kubectl get does, for the Store view
// (source.TableReader): one GET per object with the Table media type,
// only for keys asked for, and again only once the informer's cache
// holds another resourceVersion of the object. The rows of one informer
// are kept at a time; asking for another drops the previous one's.
type tables struct {
	// cached is the resourceVersion of key in the informer's own cache.
	cached func(informer, key string) (rv string, ok bool)
	// cachedObject is the object in the informer's cache, for describe
	// to judge whether it may be printed; set once, before any use.
	cachedObject func(informer, key string) (obj any, ok bool)
	// namespaceOf is where the named informer watches ("" every one or
	// cluster-scoped), for the list that learns an empty cache's columns;
	// set once, before any use.
	namespaceOf func(informer string) string
	config      *rest.Config  // carries the source's request timeout
	slots       chan struct{} // one per GET in flight

	mu     sync.Mutex
	byName map[string]*tableOf // guarded by mu: :svc and :ns change it
	last   string              // guarded by mu: the informer asked for last
}

// tableOf is one informer's resource and the rows read of it.
type tableOf struct {
	informer string
	resource string // as the redaction policy names it
	kind     string // its objects', for the redaction policy too
	gvr      schema.GroupVersionResource
	scoped   bool // namespaced

	mu      sync.Mutex
	client  rest.Interface                 // guarded by mu; built at the first ask
	columns []metav1.TableColumnDefinition // guarded by mu: the server's, all of them
	rows    map[string]tableRow            // guarded by mu: by key
	off     string                         // guarded by mu: why the informer gets no columns
	denied  bool                           // guarded by mu: off says RBAC denies get, which may change
}

// tableRow is one object as the server printed it.
type tableRow struct {
	rv    string   // the object's resourceVersion the server printed
	asked string   // the cached resourceVersion when it was asked for
	cells []string // one per column of tableOf.columns; nil when the server has no such object
}

// fresh reports whether the row still stands for the object cached at rv:
// it was printed from that version, or asked for while the cache held it
// (the server may print a newer one than the cache has yet).
func (r tableRow) fresh(rv string) bool { return r.rv == rv || r.asked == rv }

var _ source.TableReader = (*tables)(nil)

func newTables(cfg *rest.Config, res []resource, cached func(informer, key string) (string, bool)) *tables {
	t := &tables{cached: cached, config: rest.CopyConfig(cfg), byName: map[string]*tableOf{}, slots: make(chan struct{}, tableInFlight)}
	for _, r := range res {
		t.watch(r)
	}
	return t
}

// watch starts afresh the rows of the informer of r: it is new (":svc"),
// or was replaced by one watching elsewhere (":ns").
func (t *tables) watch(r resource) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byName[r.name()] = &tableOf{informer: r.name(), resource: r.name(), kind: r.mapping.GroupVersionKind.Kind,
		gvr: r.mapping.Resource, scoped: r.namespaced()}
}

// of is the named informer's table; nil when there is none.
func (t *tables) of(informer string) *tableOf {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.byName[informer]
}

// cachedVersion is the resourceVersion of key in the named informer's
// cache; ok is false when it is not cached.
func (s *Source) cachedVersion(informer, key string) (rv string, ok bool) {
	e := s.Informer(informer)
	if e == nil {
		return "", false
	}
	obj, ok := e.Cached(key)
	if !ok {
		return "", false
	}
	a, err := meta.Accessor(obj)
	if err != nil {
		return "", true
	}
	return a.GetResourceVersion(), true
}

// Rows implements source.TableReader.
func (t *tables) Rows(ctx context.Context, informer string, keys []string, wide bool) (source.Table, error) {
	tb := t.of(informer)
	if tb == nil {
		return source.Table{}, source.NoInformer(informer)
	}
	t.switchTo(informer)
	if redact.Current().TablePrintsSecrets(tb.resource) {
		return source.Table{}, fmt.Errorf("no kubectl columns for %s: it is a secret resource (--redact), whose printer columns may show its data", informer)
	}
	tb.mu.Lock()
	off := tb.off
	var todo []tableAsk
	if off == "" {
		todo = tb.stale(keys, t.cached)
	}
	tb.mu.Unlock()
	if off != "" {
		return source.Table{}, errors.New(off)
	}
	var transient error
	if len(keys) == 0 && off == "" {
		// Without them the view shows its own columns, as before.
		_ = t.learnColumns(ctx, tb)
	}
	listed, todo := t.list(ctx, tb, todo)
	for _, a := range append(listed, t.fetch(ctx, tb, todo)...) {
		if err := tb.take(a, keys); err != nil && transient == nil {
			transient = err
		}
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch {
	case tb.off != "":
		return source.Table{}, errors.New(tb.off)
	case tb.columns == nil && transient != nil:
		return source.Table{}, fmt.Errorf("no kubectl columns for %s yet: %s; they are asked for again when the list changes",
			informer, say.ErrorReason(transient.Error(), "the request failed"))
	}
	return tb.table(keys, wide), nil
}

// switchTo drops the rows of the informer asked for before when another
// is asked for: the Store view shows one informer at a time. Coming back
// to an informer whose get RBAC denied asks again, once: the user may
// have been granted it meanwhile.
func (t *tables) switchTo(informer string) {
	t.mu.Lock()
	prev := t.last
	t.last = informer
	t.mu.Unlock()
	if prev == informer {
		return
	}
	if p := t.of(prev); p != nil {
		p.mu.Lock()
		p.rows = nil
		p.mu.Unlock()
	}
	if tb := t.of(informer); tb != nil {
		tb.mu.Lock()
		if tb.denied {
			tb.off, tb.denied = "", false
		}
		tb.mu.Unlock()
	}
}

// tableAsk is one key to GET, and what came back.
type tableAsk struct {
	key, rv string // rv: the cached resourceVersion when asked
	table   *metav1.Table
	err     error
}

// stale lists the keys, each once, whose row is missing or older than
// the informer's cache; keys not cached are left out. tb.mu is held.
func (tb *tableOf) stale(keys []string, cached func(informer, key string) (string, bool)) []tableAsk {
	var out []tableAsk
	seen := make(map[string]bool, len(keys))
	for _, k := range keys {
		if seen[k] {
			continue
		}
		seen[k] = true
		rv, ok := cached(tb.informer, k)
		if !ok {
			continue
		}
		if r, ok := tb.rows[k]; ok && r.fresh(rv) {
			continue
		}
		out = append(out, tableAsk{key: k, rv: rv})
	}
	return out
}

// fetch GETs the rows of asks, at most tableInFlight at once in all.
func (t *tables) fetch(ctx context.Context, tb *tableOf, asks []tableAsk) []tableAsk {
	var wg sync.WaitGroup
	for i := range asks {
		select {
		case t.slots <- struct{}{}:
		case <-ctx.Done():
			asks[i].err = ctx.Err()
			continue
		}
		wg.Go(func() {
			defer func() { <-t.slots }()
			asks[i].table, asks[i].err = t.get(ctx, tb, asks[i].key)
		})
	}
	wg.Wait()
	return asks
}

// get asks the server to print one object as a Table, with the object's
// metadata in its row (includeObject=Metadata) for the resourceVersion;
// without it for a Secret, whose metadata may copy the whole Secret (the
// row is then kept for the cached resourceVersion it was asked at).
func (t *tables) get(ctx context.Context, tb *tableOf, key string) (*metav1.Table, error) {
	c, err := tb.restClient(t.config)
	if err != nil {
		return nil, err
	}
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil, err
	}
	include := metav1.IncludeMetadata
	if redact.Current().SecretResource(tb.resource) {
		include = metav1.IncludeNone
	}
	obj, err := c.Get().NamespaceIfScoped(ns, tb.scoped && ns != "").Resource(tb.gvr.Resource).Name(name).
		Param("includeObject", string(include)).SetHeader("Accept", tableAccept).Do(ctx).Get()
	if err != nil {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if gvk := obj.GetObjectKind().GroupVersionKind(); !ok || gvk != metav1.SchemeGroupVersion.WithKind("Table") {
		return nil, notATable{what: gvk.Kind}
	}
	var table metav1.Table
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &table); err != nil {
		return nil, notATable{what: "a Table informtop cannot read (" + err.Error() + ")"}
	}
	return &table, nil
}

// notATable: the server answered a request for a Table with something else.
type notATable struct{ what string }

func (e notATable) Error() string {
	what := e.what
	if what == "" {
		what = "an object of no kind"
	}
	return "the server answered with " + what + " instead of a Table"
}

// restClient is the informer's group version's client, speaking JSON
// into unstructured objects as the dynamic client does: a Table is read
// like any other object. tb.mu is not held.
func (tb *tableOf) restClient(base *rest.Config) (rest.Interface, error) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.client != nil {
		return tb.client, nil
	}
	cfg := dynamic.ConfigFor(base)
	if cfg.RateLimiter == nil && cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = tableQPS, tableBurst
	}
	gv := tb.gvr.GroupVersion()
	cfg.GroupVersion = &gv
	cfg.APIPath = "/apis"
	if gv.Group == "" {
		cfg.APIPath = "/api"
	}
	c, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, err
	}
	tb.client = c
	return c, nil
}

// take keeps what one GET brought. A refusal that will not change (RBAC,
// a server that prints no tables for the resource) turns the informer's
// columns off with a sentence; any other failure is returned, and the key
// asked again next time. asked are the keys of this ask, kept when the
// rows have to be cut down.
func (tb *tableOf) take(a tableAsk, asked []string) error {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch {
	case a.err == nil:
	case apierrors.IsNotFound(a.err):
		// Deleted on the server, still cached: nothing to print until
		// the cache moves.
		tb.keep(a.key, tableRow{asked: a.rv}, asked)
		return nil
	case apierrors.IsForbidden(a.err):
		tb.off = fmt.Sprintf("no kubectl columns for %s: RBAC allows list but not get; grant get on %s, then come back to it (%v)",
			tb.informer, tb.informer, a.err)
		tb.denied = true
		return nil
	case apierrors.IsNotAcceptable(a.err) || apierrors.IsUnsupportedMediaType(a.err) || errors.As(a.err, new(notATable)):
		tb.off = fmt.Sprintf("no kubectl columns for %s: the API server prints no table for it (%v)", tb.informer, a.err)
		return nil
	default:
		return a.err
	}
	if len(a.table.Rows) == 0 {
		return nil
	}
	if !sameColumns(tb.columns, a.table.ColumnDefinitions) {
		// A CRD's printer columns changed: rows printed before do not fit.
		tb.columns, tb.rows = a.table.ColumnDefinitions, nil
	}
	row := a.table.Rows[0]
	r := tableRow{asked: a.rv, cells: make([]string, len(tb.columns))}
	var m metav1.PartialObjectMetadata
	if len(row.Object.Raw) > 0 && json.Unmarshal(row.Object.Raw, &m) == nil {
		r.rv = m.ResourceVersion
	}
	// The row's cells are a view of the object: hidden as its YAML is,
	// by the same decision (an object whose last-applied copies a Secret
	// shows its names and age only).
	v := redact.Current().Decide(tb.resource, tb.kind, maps.All(m.Annotations))
	for i := range r.cells {
		if i < len(row.Cells) {
			r.cells[i] = v.TableCell(tb.columns[i].Name, cellText(row.Cells[i]))
		}
	}
	tb.keep(a.key, r, asked)
	return nil
}

// keep stores a row, first dropping the rows of keys not asked for when
// the informer's rows would pass tableMaxRows. tb.mu is held.
func (tb *tableOf) keep(key string, r tableRow, asked []string) {
	if tb.rows == nil {
		tb.rows = map[string]tableRow{}
	}
	if _, ok := tb.rows[key]; !ok && len(tb.rows) >= tableMaxRows {
		kept := make(map[string]tableRow, len(asked))
		for _, k := range asked {
			if r, ok := tb.rows[k]; ok {
				kept[k] = r
			}
		}
		tb.rows = kept
	}
	tb.rows[key] = r
}

// table is what Rows answers: the server's columns but its name and age,
// the wide ones only when asked for, and the row of each key known.
// tb.mu is held.
func (tb *tableOf) table(keys []string, wide bool) source.Table {
	var cols []int
	out := source.Table{Rows: map[string][]string{}}
	for i, c := range tb.columns {
		if c.Format == "name" || strings.EqualFold(c.Name, "name") || strings.EqualFold(c.Name, "age") || (c.Priority > 0 && !wide) {
			continue
		}
		cols = append(cols, i)
		out.Columns = append(out.Columns, source.TableColumn{Name: strings.ToUpper(c.Name), Description: c.Description, Wide: c.Priority > 0})
	}
	for _, k := range keys {
		r, ok := tb.rows[k]
		if !ok || r.cells == nil {
			continue
		}
		cells := make([]string, len(cols))
		for j, i := range cols {
			cells[j] = r.cells[i]
		}
		out.Rows[k] = cells
	}
	return out
}

// sameColumns compares column definitions by what a row's cells depend on.
func sameColumns(a, b []metav1.TableColumnDefinition) bool {
	return slices.EqualFunc(a, b, func(x, y metav1.TableColumnDefinition) bool {
		return x.Name == y.Name && x.Type == y.Type && x.Format == y.Format && x.Priority == y.Priority
	})
}

// cellText prints a cell as kubectl does: nothing for a missing value,
// the text up to its first line break (then "..."), a number or a bool as
// Go prints it.
func cellText(v any) string {
	var s string
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		s = v
	default:
		s = fmt.Sprint(v)
	}
	if i := strings.IndexAny(s, "\f\n\r"); i >= 0 {
		s = s[:i] + "..."
	}
	return s
}
