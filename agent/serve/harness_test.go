package serve

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/agent/verify"
)

// The tests of serve's internals serve a source of no engine: a
// sourcetest.Fake, cut by cuttable where a test needs cuts.

// cuttable is a sourcetest.Fake whose caches can be cut, as an engine
// informer's are: a cut is the store's keys with their objects'
// resourceVersions, at the store's generation as its resourceVersion.
type cuttable struct {
	*sourcetest.Fake
}

var _ source.Cutter = cuttable{}

// newCuttable serves one synced informer, pods, with pods as its cache.
func newCuttable(pods *sourcetest.Store) cuttable {
	return cuttable{sourcetest.New(sourcetest.Config{
		Kind: "test", Title: "no engine",
		Frames: [][]source.Informer{{{Name: "pods", Resource: "pods", Synced: true,
			Listeners: []source.Listener{{Name: "controller", Synced: true}}}}},
		Stores: map[string]source.StoreReader{"pods": pods},
	})}
}

func (c cuttable) Controls() source.Controls { return source.Controls{Cuts: c} }

// Cut implements source.Cutter.
func (c cuttable) Cut(_ context.Context, informer string) (verify.Cut, error) {
	st, ok := c.Store(informer).(*sourcetest.Store)
	if !ok {
		return verify.Cut{}, source.NoInformer(informer)
	}
	cut := verify.Cut{ResourceVersion: strconv.FormatUint(st.Generation(), 10), Objects: map[string]string{}}
	for _, it := range st.Items() {
		cut.Objects[it.Key] = it.Object.(*metav1.PartialObjectMetadata).ResourceVersion
	}
	return cut, nil
}

// podsStore is a cache of the pods named (their metadata), in namespace
// default, at generation gen.
func podsStore(gen uint64, names ...string) *sourcetest.Store {
	items := make([]sourcetest.Item, len(names))
	for i, name := range names {
		items[i] = sourcetest.Item{Key: "default/" + name, Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: name, ResourceVersion: strconv.Itoa(i + 1), Labels: map[string]string{"app": "web"},
		}}}
	}
	return sourcetest.NewResourceStore("pods", gen, items...)
}

// errorSentence decodes an api.Error body.
func errorSentence(t *testing.T, body []byte) string {
	t.Helper()
	var e api.Error
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		t.Fatalf("body is not an api.Error: %s (%v)", body, err)
	}
	return e.Error
}
