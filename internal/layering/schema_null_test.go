package layering

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/source"
)

// Every field a report writes as null because its source cannot know it
// (client-go's own informer through an agent, goroutine dumps) is one the
// schema lets be null, on informers and on listeners alike: a reader that
// validates the report against it accepts what informtop writes.
func TestReportSchemaAllowsTheUnknownNulls(t *testing.T) {
	var schema map[string]any
	if err := json.Unmarshal([]byte(read(t, "docs/report.schema.json")), &schema); err != nil {
		t.Fatal(err)
	}
	c := schemaCheck{t: t, root: schema}
	defs := schema["$defs"].(map[string]any)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var snaps []source.Informer
	for _, impl := range []string{source.ImplementationClientGo, source.ImplementationPprof} {
		snaps = append(snaps, source.Informer{Name: impl, Implementation: impl, Started: true, Taken: now,
			Listeners: []source.Listener{{Name: "h"}}})
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, report.Build("attach", snaps, nil, source.RingStats{}, nil, now)); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Informers []map[string]any `json:"informers"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	nulls := 0
	check := func(obj map[string]any, def, at string) {
		props := c.resolve(defs[def].(map[string]any), at)["properties"].(map[string]any)
		unknown, _ := obj["unknown"].(map[string]any)
		for name := range unknown {
			if obj[name] != nil {
				t.Errorf("%s.%s: unknown, but written as %v", at, name, obj[name])
			}
			nulls++
			node := c.resolve(props[name].(map[string]any), at+"."+name)
			types, _ := node["type"].([]any)
			if !slices.Contains(types, any("null")) {
				t.Errorf("%s.%s: written as null (unknown: %v), but the schema's type is %v", at, name, unknown[name], node["type"])
			}
		}
	}
	for _, inf := range back.Informers {
		at := "informers[" + inf["name"].(string) + "]"
		check(inf, "Informer", at)
		for _, l := range inf["listeners"].([]any) {
			check(l.(map[string]any), "Listener", at+".listeners[]")
		}
	}
	if nulls < 10 {
		t.Errorf("checked %d unknown fields; want those of client-go's informer and of goroutine dumps", nulls)
	}
}
