package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/informtop/informtop/agent/shared/fill"
)

// texts are what the model's text types read: a queue kind and an event type.
var texts = []string{"DeltaFIFO", "Distribute"}

var update = flag.Bool("update", false, "rewrite the golden files of the data model")

// The model's JSON is what the agent's wire and anything storing frames
// read. It is pinned here, per ModelVersion: a change to it without a new
// version fails, and says what to do.
func TestModelJSONIsPinnedByVersion(t *testing.T) {
	model := map[string]any{
		"informer":   fill.Value[Informer](texts...),
		"event":      fill.Value[Event](texts...),
		"step":       fill.Value[StepResult](texts...),
		"pending":    fill.Value[Pending](texts...),
		"workqueue":  fill.Value[Workqueue](texts...),
		"status":     fill.Value[Status](texts...),
		"entry":      fill.Value[Entry](texts...),
		"object":     fill.Value[Object](texts...),
		"freshness":  fill.Value[Freshness](texts...),
		"reasons":    Reasons{"pods": "not started yet"},
		"queueItems": fill.Value[[]QueueItem](texts...),
	}
	got, err := json.MarshalIndent(model, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if err := pinned(filepath.Join("testdata", "model.v"+ModelVersion+".json"), got, *update); err != nil {
		t.Fatalf("%v\ngot:\n%s", err, got)
	}
}

// pinned compares got with the golden file at path. update writes the
// golden file of a version that has none yet, and nothing else: the file
// of a version already published is what its readers rely on, so -update
// cannot rewrite it and quiet the guard; only a new ModelVersion can.
func pinned(path string, got []byte, update bool) error {
	want, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) && update {
		return os.WriteFile(path, got, 0o644)
	}
	if err != nil {
		return fmt.Errorf("%v: a new ModelVersion needs its golden file: run go test ./source -run TestModelJSONIsPinnedByVersion -update", err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("the data model's JSON changed but ModelVersion is still %s: readers of version %s would misread it. "+
			"Bump ModelVersion (and agent/api's Version), then run go test ./source -run TestModelJSONIsPinnedByVersion -update "+
			"to write the new version's golden file (-update never rewrites a published one)", ModelVersion, ModelVersion)
	}
	return nil
}

// -update writes a new version's golden file but cannot rewrite a
// published one.
func TestUpdateCannotRewriteAPublishedVersion(t *testing.T) {
	dir := t.TempDir()
	published := filepath.Join(dir, "model.v3.json")
	if err := os.WriteFile(published, []byte("{\"old\": true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pinned(published, []byte("{\"new\": true}\n"), true); err == nil {
		t.Error("-update rewrote the golden file of a published version")
	}
	if b, _ := os.ReadFile(published); string(b) != "{\"old\": true}\n" {
		t.Errorf("the published golden file now reads %q", b)
	}
	next := filepath.Join(dir, "model.v4.json")
	if err := pinned(next, []byte("{\"new\": true}\n"), true); err != nil {
		t.Fatalf("-update did not write a new version's golden file: %v", err)
	}
	if err := pinned(next, []byte("{\"new\": true}\n"), false); err != nil {
		t.Errorf("the new golden file does not pin what was written: %v", err)
	}
}

// Every model type reads back what it wrote: nothing is lost on the wire.
func TestModelRoundTrips(t *testing.T) {
	check := func(name string, in, out any) {
		t.Helper()
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := reflect.ValueOf(out).Elem().Interface(); !reflect.DeepEqual(got, in) {
			t.Errorf("%s: read back %+v, wrote %+v", name, got, in)
		}
	}
	check("informer", fill.Value[Informer](texts...), new(Informer))
	check("event", fill.Value[Event](texts...), new(Event))
	check("step", fill.Value[StepResult](texts...), new(StepResult))
	check("workqueue", fill.Value[Workqueue](texts...), new(Workqueue))
}

// A clone shares nothing: writing into every part of it leaves the
// original as it was.
func TestCloneSharesNothing(t *testing.T) {
	orig := fill.Value[Informer](texts...)
	want, _ := json.Marshal(orig)
	c := orig.Clone()
	scribble(reflect.ValueOf(&c).Elem())
	if got, _ := json.Marshal(orig); !bytes.Equal(got, want) {
		t.Fatalf("writing into a clone changed the original:\n%s\nwas\n%s", got, want)
	}
}

// scribble writes into every slice element, map entry and pointee of v.
func scribble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				scribble(v.Field(i))
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			scribble(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			scribble(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString("scribbled")
		}
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		if v.CanSet() && v.Type().PkgPath() == "" {
			v.SetZero()
		}
	}
}
