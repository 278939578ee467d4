package kube

import (
	"context"
	"encoding/json"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informtop/informtop/agent/redact"
)

const (
	// tableListFrom is how many stale rows make one LIST cheaper than a
	// GET each: a filter or a sort over every cell asks for up to 500 at
	// once, which GETs, four at a time, would take seconds to bring.
	tableListFrom = 40
	// tableListPage and tableListPages bound the LIST: pages of 500 rows,
	// as kubectl get's chunks, and at most 20 of them; keys it did not
	// bring are read with a GET each.
	tableListPage  = 500
	tableListPages = 20
)

// list reads the rows of many stale keys with one paginated LIST printed
// as a Table (with each object's metadata, for its key, resourceVersion
// and the redaction decision), where the informer lists. It answers the
// asks it found a row for, and returns the others for GETs. Secret
// resources are never listed so: their rows are asked without metadata.
func (t *tables) list(ctx context.Context, tb *tableOf, asks []tableAsk) (done, rest []tableAsk) {
	if len(asks) < tableListFrom || redact.Current().SecretResource(tb.resource) {
		return nil, asks
	}
	c, err := tb.restClient(t.config)
	if err != nil {
		return nil, asks
	}
	ns := ""
	if t.namespaceOf != nil {
		ns = t.namespaceOf(tb.informer)
	}
	want := make(map[string]int, len(asks))
	for i, a := range asks {
		want[a.key] = i
	}
	found := make([]bool, len(asks))
	cont := ""
	for page := 0; page < tableListPages && len(want) > 0; page++ {
		req := c.Get().NamespaceIfScoped(ns, tb.scoped && ns != "").Resource(tb.gvr.Resource).
			Param("limit", strconv.Itoa(tableListPage)).Param("includeObject", string(metav1.IncludeMetadata)).SetHeader("Accept", tableAccept)
		if cont != "" {
			req = req.Param("continue", cont)
		}
		obj, err := req.Do(ctx).Get()
		if err != nil {
			break // the GETs say what is wrong, key by key
		}
		u, ok := obj.(*unstructured.Unstructured)
		if gvk := obj.GetObjectKind().GroupVersionKind(); !ok || gvk != metav1.SchemeGroupVersion.WithKind("Table") {
			break
		}
		var table metav1.Table
		if runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &table) != nil {
			break
		}
		for _, row := range table.Rows {
			var m metav1.PartialObjectMetadata
			if len(row.Object.Raw) == 0 || json.Unmarshal(row.Object.Raw, &m) != nil {
				continue
			}
			key := m.Name
			if m.Namespace != "" {
				key = m.Namespace + "/" + m.Name
			}
			i, ok := want[key]
			if !ok {
				continue
			}
			delete(want, key)
			found[i] = true
			asks[i].table = &metav1.Table{ColumnDefinitions: table.ColumnDefinitions, Rows: []metav1.TableRow{row}}
			done = append(done, asks[i])
		}
		if cont = table.Continue; cont == "" {
			break
		}
	}
	for i, a := range asks {
		if !found[i] {
			rest = append(rest, a)
		}
	}
	return done, rest
}
