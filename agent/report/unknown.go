package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/informtop/informtop/agent/source"
)

// What a source that reads goroutine dumps (source.ImplementationPprof:
// attach --pprof), or an agent beside client-go's own informer
// (source.ImplementationClientGo), cannot know. Its fields are written as
// null, not 0, with these reasons under "unknown", so that a reader never
// takes a figure that was not measured for one that was zero.
const (
	whyNoAgent = "not available without the agent: add one line (docs/agent.md)"
	whyDump    = "a goroutine dump does not show it; " + whyNoAgent
)

// pprofInformerUnknown and pprofListenerUnknown map the report's JSON
// fields to why they are unknown for a pprof-read informer.
var (
	pprofInformerUnknown = map[string]string{
		"resource":                "a goroutine dump does not name the resource an informer watches; its handlers name it",
		"lastSyncResourceVersion": whyDump,
		"queue":                   whyDump,
		"store":                   whyDump,
		"reflector":               whyDump,
		"memory":                  whyDump,
	}
	pprofListenerUnknown = map[string]string{
		"pending":              whyDump,
		"capacity":             whyDump,
		"delivered":            whyDump,
		"deliveredByType":      whyDump,
		"panics":               whyDump,
		"cacheMutations":       whyDump,
		"oldestPendingSeconds": whyDump,
		"inCallbackKey":        "a goroutine dump does not show the object a handler was given; " + whyNoAgent,
	}
)

// What client-go's own informer keeps to itself: its queue (depth, age,
// flow) and its listeners' buffers. The agent sees what the watch brings
// and what the handlers get; the memory estimate is null on its own
// (nothing sized).
const (
	whyClientGoQueue  = "client-go's own informer keeps its queue to itself: the agent sees what the watch brings and what the handlers get, not the rows between"
	whyClientGoBuffer = "client-go's own informer keeps its listeners' buffers to itself"
)

var (
	clientGoInformerUnknown = map[string]string{"queue": whyClientGoQueue}
	clientGoListenerUnknown = map[string]string{"capacity": whyClientGoBuffer}
)

// markUnknown fills what the informer's source cannot know: for
// client-go's own informer its queue and its listeners' capacity; for a
// pprof-read informer the fields above, and in-callback times as lower
// bounds (consecutive dumps found the call, it may have started earlier).
func markUnknown(ir *Informer, impl string) {
	if impl == source.ImplementationClientGo {
		ir.Unknown = maps.Clone(clientGoInformerUnknown)
		for i := range ir.Listeners {
			ir.Listeners[i].Unknown = maps.Clone(clientGoListenerUnknown)
		}
		return
	}
	if impl != source.ImplementationPprof {
		return
	}
	ir.Unknown = maps.Clone(pprofInformerUnknown)
	for i := range ir.Listeners {
		l := &ir.Listeners[i]
		l.Unknown = maps.Clone(pprofListenerUnknown)
		l.InCallbackAtLeast = l.InCallback != ""
	}
}

// MarshalJSON writes the informer with its unknown fields as null.
func (i Informer) MarshalJSON() ([]byte, error) {
	type plain Informer
	return withNulls(plain(i), i.Unknown)
}

// MarshalJSON writes the listener with its unknown fields as null.
func (l Listener) MarshalJSON() ([]byte, error) {
	type plain Listener
	return withNulls(plain(l), l.Unknown)
}

// withNulls marshals v, a struct, and writes null for each top-level
// field named in unknown, keeping the fields' order.
func withNulls(v any, unknown map[string]string) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil || len(unknown) == 0 {
		return raw, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for n := 0; dec.More(); n++ {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("report: a key that is no string: %v", tok)
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		if n > 0 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		if _, unknown := unknown[key]; unknown {
			out.WriteString("null")
		} else {
			out.Write(val)
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// unknownFields lists the names of what is unknown, for the table.
func unknownFields(unknown map[string]string) []string {
	return slices.Sorted(maps.Keys(unknown))
}
