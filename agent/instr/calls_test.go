package instr

import (
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/agent/shared/fill"
)

// The call figures of a listener are named and rounded here, for the
// engine's listeners and the agent's probes alike: a reading fills exactly
// these fields, every one of them, and nothing else.
func TestCallReadingFillsEveryCallFigure(t *testing.T) {
	since := fill.When
	obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"}}
	window := []time.Duration{5 * time.Millisecond, time.Millisecond, 90 * time.Millisecond, 2 * time.Millisecond}
	var l pipeline.Listener
	CallReading{Callback: pipeline.CallbackUpdate, Since: since, Object: obj, Window: window}.Fill(&l)

	if l.InCallback != pipeline.CallbackUpdate || l.InCallbackKey != "team/web" || !l.InCallbackSince.Equal(since) {
		t.Errorf("the call in progress reads %q %q since %v, want OnUpdate team/web since %v", l.InCallback, l.InCallbackKey, l.InCallbackSince, since)
	}
	if p50, p99 := Percentiles(window); l.LatencyP50 != p50 || l.LatencyP99 != p99 || p50 == 0 {
		t.Errorf("latencies %v/%v, want %v/%v", l.LatencyP50, l.LatencyP99, p50, p99)
	}
	owned := []string{"InCallback", "InCallbackKey", "InCallbackSince", "LatencyP50", "LatencyP99"}
	for _, f := range fill.Zero(l) {
		if slices.Contains(owned, f) {
			t.Errorf("Fill left %s zero", f)
		}
	}
	typ := reflect.TypeFor[pipeline.Listener]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !slices.Contains(owned, f.Name) && !slices.Contains(fill.Zero(l), f.Name) {
			t.Errorf("Fill set %s, which is not a call figure", f.Name)
		}
	}

	var idle pipeline.Listener
	CallReading{Window: window}.Fill(&idle)
	if idle.InCallback != "" || idle.InCallbackKey != "" || !idle.InCallbackSince.IsZero() || idle.LatencyP99 == 0 {
		t.Errorf("an idle listener reads %+v", idle)
	}
}
