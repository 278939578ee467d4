package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/source"
)

// A handler that changed cached objects is counted per listener in the JSON
// (cacheMutations, with the last one's key and fields) and named in the
// table; a clean one says 0.
func TestReportCarriesCacheMutations(t *testing.T) {
	last := &source.CacheMutation{Callback: source.CallbackUpdate, Key: "default/web-1",
		Fields: []string{`metadata.labels.touched: "" → "yes"`}}
	snaps := []source.Informer{{Name: "pods", Resource: "pods", Synced: true, Listeners: []source.Listener{
		{Name: "clean", Synced: true},
		{Name: "labeler", Synced: true, CacheMutations: 3, LastCacheMutation: last},
	}}}
	r := Build("demo", snaps, nil, source.RingStats{}, nil, time.Now())
	var js, table bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name": "clean"`, `"cacheMutations": 0`, `"cacheMutations": 3`,
		`"key": "default/web-1"`, `"metadata.labels.touched: \"\" → \"yes\""`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, js.String())
		}
	}
	if err := WriteTable(&table, r); err != nil {
		t.Fatal(err)
	}
	if want := `labeler changed 3 cached objects, last default/web-1 in OnUpdate: metadata.labels.touched: "" → "yes"`; !strings.Contains(table.String(), want) {
		t.Errorf("table lacks %q:\n%s", want, table.String())
	}
}
