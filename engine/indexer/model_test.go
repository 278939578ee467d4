package indexer

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// The differential and fuzz tests run one program on our Indexer and on
// client-go's cache.NewIndexer (the reference model) and require the two to
// agree on everything observable after every operation.
//
// A program is a byte string read three bytes per operation: opcode, a, b.

var (
	modelNamespaces = []string{"ns0", "ns1", "ns2"}
	modelNames      = []string{"a", "b", "c", "d", "e", "f"}
)

const modelKeys = 18 // len(modelNamespaces) * len(modelNames)

func modelKey(n int) (ns, name string) {
	n %= modelKeys
	return modelNamespaces[n/len(modelNames)], modelNames[n%len(modelNames)]
}

// modelTags derives a tag list from b: any subset of t0..t3, optionally with
// a duplicate and reversed, so index functions return 0..5 values.
func modelTags(b byte) []string {
	var tags []string
	for j := range 4 {
		if b&(1<<j) != 0 {
			tags = append(tags, "t"+strconv.Itoa(j))
		}
	}
	if b&16 != 0 && len(tags) > 0 {
		tags = append(tags, tags[0])
	}
	if b&32 != 0 {
		slices.Reverse(tags)
	}
	return tags
}

type model struct {
	t    testing.TB
	ours *Indexer
	ref  cache.Indexer
	rv   int
}

func newModel(t testing.TB) *model {
	return &model{
		t:    t,
		ours: newTestIndexer(),
		ref:  cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, testIndexers()),
	}
}

// nextRV returns a fresh resourceVersion, or "" when b's top bit is set.
func (m *model) nextRV(b byte) string {
	m.rv++
	if b&128 != 0 {
		return ""
	}
	return strconv.Itoa(m.rv)
}

func (m *model) object(a, b byte) *obj {
	ns, name := modelKey(int(a))
	return newObj(ns, name, m.nextRV(b), modelTags(b)...)
}

// both runs do on both stores and requires the same error outcome.
func (m *model) both(what string, do func(s cache.Indexer) error) {
	m.t.Helper()
	err, refErr := do(m.ours), do(m.ref)
	if (err == nil) != (refErr == nil) {
		m.t.Fatalf("%s: error %v, client-go %v", what, err, refErr)
	}
}

func (m *model) step(op, a, b byte) string {
	switch op % 10 {
	case 0:
		o := m.object(a, b)
		m.both("Add", func(s cache.Indexer) error { return s.Add(o) })
		return fmt.Sprintf("Add %s/%s %v", o.Namespace, o.Name, o.Tags)
	case 1:
		o := m.object(a, b)
		m.both("Update", func(s cache.Indexer) error { return s.Update(o) })
		return fmt.Sprintf("Update %s/%s %v", o.Namespace, o.Name, o.Tags)
	case 2:
		o := m.object(a, b)
		m.both("Delete", func(s cache.Indexer) error { return s.Delete(o) })
		return fmt.Sprintf("Delete %s/%s", o.Namespace, o.Name)
	case 3:
		ns, name := modelKey(int(a))
		last, _, _ := m.ref.GetByKey(ns + "/" + name)
		tomb := cache.DeletedFinalStateUnknown{Key: ns + "/" + name, Obj: last}
		m.both("Delete tombstone", func(s cache.Indexer) error { return s.Delete(tomb) })
		return "Delete tombstone " + tomb.Key
	case 4:
		var list []any
		for k := range modelKeys {
			if (k*7+int(a))%3 == 0 {
				list = append(list, m.object(byte(k), b+byte(k)))
			}
		}
		if b&64 != 0 && len(list) > 0 { // a repeated key: the last one wins
			list = append(list, m.object(byte(a), b^0x0f))
		}
		rv := m.nextRV(b)
		m.both("Replace", func(s cache.Indexer) error { return s.Replace(slices.Clone(list), rv) })
		return fmt.Sprintf("Replace %d items rv=%q", len(list), rv)
	case 5:
		rv := m.nextRV(b)
		m.both("Bookmark", func(s cache.Indexer) error { s.Bookmark(rv); return nil })
		return "Bookmark " + rv
	case 6:
		return m.transaction(a, b)
	case 7:
		more := cache.Indexers{"first": firstIndex}
		err, refErr := m.ours.AddIndexers(more), m.ref.AddIndexers(more)
		if fmt.Sprint(err) != fmt.Sprint(refErr) {
			m.t.Fatalf("AddIndexers: error %v, client-go %v", err, refErr)
		}
		return "AddIndexers first"
	case 8:
		m.both("Add keyless", func(s cache.Indexer) error { return s.Add("keyless") })
		return "Add keyless"
	default:
		// Re-store the current object under a new version with the same
		// values: the path where no index entry moves.
		ns, name := modelKey(int(a))
		cur, ok, _ := m.ref.GetByKey(ns + "/" + name)
		if !ok {
			return "Resync (nothing)"
		}
		o := *cur.(*obj)
		o.ResourceVersion = m.nextRV(b)
		m.both("Update same values", func(s cache.Indexer) error { return s.Update(&o) })
		return "Update same values " + ns + "/" + name
	}
}

func (m *model) transaction(a, b byte) string {
	types := []cache.TransactionType{cache.TransactionTypeAdd, cache.TransactionTypeUpdate, cache.TransactionTypeDelete, "Bogus"}
	var txns []cache.Transaction
	for j := range 3 {
		x, y := a+byte(j*5), b^byte(j*37)
		var o any = m.object(x, y)
		if y&8 != 0 && j == 1 {
			o = "keyless"
		}
		txns = append(txns, cache.Transaction{Type: types[int(y>>1)%len(types)], Object: o})
	}
	err := m.ours.Transaction(txns...)
	refErr := m.ref.(cache.TransactionStore).Transaction(txns...)
	if (err == nil) != (refErr == nil) {
		m.t.Fatalf("Transaction: error %v, client-go %v", err, refErr)
	}
	if err != nil && (!slices.Equal(err.SuccessfulIndices, refErr.SuccessfulIndices) || err.TotalTransactions != refErr.TotalTransactions || len(err.Errors) != len(refErr.Errors)) {
		m.t.Fatalf("Transaction: error %+v, client-go %+v", err, refErr)
	}
	desc := "Transaction"
	for _, txn := range txns {
		k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(txn.Object)
		desc += fmt.Sprintf(" %s(%s)", txn.Type, k)
	}
	return desc
}

// compare requires both stores to agree on every query the UI or a lister
// could make, and our indexes to be exactly what a rebuild would give.
func (m *model) compare(after string) {
	t := m.t
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("after %s: %s", after, fmt.Sprintf(format, args...))
	}
	keys, refKeys := m.ours.ListKeys(), m.ref.ListKeys()
	slices.Sort(keys)
	slices.Sort(refKeys)
	if !slices.Equal(keys, refKeys) {
		fail("keys %v, client-go %v", keys, refKeys)
	}
	if len(m.ours.List()) != len(m.ref.List()) {
		fail("List has %d objects, client-go %d", len(m.ours.List()), len(m.ref.List()))
	}
	for k := range modelKeys {
		ns, name := modelKey(k)
		o, ok, _ := m.ours.GetByKey(ns + "/" + name)
		ro, rok, _ := m.ref.GetByKey(ns + "/" + name)
		if ok != rok || o != ro {
			fail("GetByKey(%s/%s) = %v %v, client-go %v %v", ns, name, o, ok, ro, rok)
		}
	}
	if rv, refRV := m.ours.LastStoreSyncResourceVersion(), m.ref.LastStoreSyncResourceVersion(); rv != refRV {
		fail("last rv %q, client-go %q", rv, refRV)
	}
	names := m.ours.IndexNames()
	var refNames []string
	for name := range m.ref.GetIndexers() {
		refNames = append(refNames, name)
	}
	slices.Sort(refNames)
	if !slices.Equal(names, refNames) {
		fail("index names %v, client-go %v", names, refNames)
	}
	probes := []*obj{newObj("ns1", "p", ""), newObj("ns2", "p", "", "t1"), newObj("ns0", "p", "", "t0", "t3", "t0")}
	for _, name := range names {
		values, refValues := sortedValues(m.ours, name), sortedValues(m.ref, name)
		if !slices.Equal(values, refValues) {
			fail("index %s values %v, client-go %v", name, values, refValues)
		}
		for _, v := range append(values, "missing", "") {
			ik, err := m.ours.IndexKeys(name, v)
			rik, refErr := m.ref.IndexKeys(name, v)
			if err != nil || refErr != nil || !slices.Equal(ik, rik) {
				fail("IndexKeys(%s, %s) = %v %v, client-go %v %v", name, v, ik, err, rik, refErr)
			}
			by, err := m.ours.ByIndex(name, v)
			rby, refErr := m.ref.ByIndex(name, v)
			if err != nil || refErr != nil {
				fail("ByIndex(%s, %s): %v, client-go %v", name, v, err, refErr)
			}
			m.sameObjects(fail, "ByIndex("+name+", "+v+")", by, rby)
		}
		for _, p := range probes {
			got, err := m.ours.Index(name, p)
			want, refErr := m.ref.Index(name, p)
			if err != nil || refErr != nil {
				fail("Index(%s, %v): %v, client-go %v", name, p.Tags, err, refErr)
			}
			m.sameObjects(fail, "Index("+name+")", got, want)
		}
	}
	if st := m.ours.Stats(); st.Objects != len(refKeys) {
		fail("Stats.Objects %d, want %d", st.Objects, len(refKeys))
	}
	checkConsistent(t, m.ours)
}

// sameObjects requires two unordered object lists to hold the very same
// objects (pointer-equal), key by key.
func (m *model) sameObjects(fail func(string, ...any), what string, got, want []any) {
	byKey := func(objs []any) map[string]any {
		out := make(map[string]any, len(objs))
		for _, o := range objs {
			k, _ := cache.DeletionHandlingMetaNamespaceKeyFunc(o)
			if _, dup := out[k]; dup {
				fail("%s returned %s twice", what, k)
			}
			out[k] = o
		}
		return out
	}
	g, w := byKey(got), byKey(want)
	if len(g) != len(w) {
		fail("%s has %d objects, client-go %d", what, len(g), len(w))
	}
	for k, o := range w {
		if g[k] != o {
			fail("%s: object for %s differs from client-go's", what, k)
		}
	}
}

// run executes a program, comparing after every operation.
func (m *model) run(prog []byte) {
	for n := 0; n+2 < len(prog); n += 3 {
		m.compare(m.step(prog[n], prog[n+1], prog[n+2]))
	}
}
