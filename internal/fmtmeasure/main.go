//go:build fmtmeasure

// Command fmtmeasure compares encodings of a recording (README, "Why
// gzip'd JSON lines"): go run -tags fmtmeasure ./internal/fmtmeasure FILE.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/klauspost/compress/zstd"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/informtop/informtop/recording"
)

type protoer interface{ Marshal() ([]byte, error) }

func typed(raw []byte) protoer {
	var k struct{ Kind string }
	_ = json.Unmarshal(raw, &k)
	var o protoer
	switch k.Kind {
	case "Pod":
		o = &corev1.Pod{}
	case "ConfigMap":
		o = &corev1.ConfigMap{}
	case "Secret":
		o = &corev1.Secret{}
	case "Deployment":
		o = &appsv1.Deployment{}
	default:
		return nil
	}
	_ = json.Unmarshal(raw, o)
	return o
}

func main() {
	rec, err := recording.Read(os.Args[1])
	if err != nil {
		panic(err)
	}
	var jsonl, proto bytes.Buffer
	events, objects := 0, 0
	for _, r := range rec.Records {
		b, _ := json.Marshal(r)
		jsonl.Write(b)
		jsonl.WriteByte('\n')
		if r.Kind == recording.KindEvent {
			events++
		}
		// protobuf-delimited: the envelope without objects as JSON-free
		// fields is approximated by 24 bytes; objects in Kubernetes protobuf.
		objs := r.Items
		if r.Object != nil {
			objs = append(objs, r.Object)
		}
		env := 24
		proto.Write(binary.AppendUvarint(nil, uint64(env)))
		proto.Write(make([]byte, env))
		for _, raw := range objs {
			objects++
			if o := typed(raw); o != nil {
				pb, _ := o.Marshal()
				proto.Write(binary.AppendUvarint(nil, uint64(len(pb))))
				proto.Write(pb)
			} else {
				proto.Write(raw)
			}
		}
	}
	fmt.Printf("%d records, %d watch events, %d objects\n", len(rec.Records), events, objects)
	report := func(name string, in []byte, f func([]byte) []byte) {
		start := time.Now()
		out := f(in)
		el := time.Since(start)
		fmt.Printf("%-28s %9d bytes  %6.0f B/object  %6.1f MB/s\n", name, len(out), float64(len(out))/float64(objects), float64(len(in))/el.Seconds()/1e6)
	}
	id := func(b []byte) []byte { return b }
	var gz func(level int) func([]byte) []byte
	gz = func(level int) func([]byte) []byte {
		return func(b []byte) []byte {
			var o bytes.Buffer
			w, _ := gzip.NewWriterLevel(&o, level)
			w.Write(b)
			w.Close()
			return o.Bytes()
		}
	}
	zs := func(level zstd.EncoderLevel) func([]byte) []byte {
		return func(b []byte) []byte {
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(level))
			return e.EncodeAll(b, nil)
		}
	}
	per := map[string]*bytes.Buffer{}
	perObjs := map[string]int{}
	for _, r := range rec.Records {
		if r.Kind != recording.KindEvent && r.Kind != recording.KindList {
			continue
		}
		if per[r.Informer] == nil {
			per[r.Informer] = &bytes.Buffer{}
		}
		b, _ := json.Marshal(r)
		per[r.Informer].Write(b)
		per[r.Informer].WriteByte('\n')
		perObjs[r.Informer] += len(r.Items)
		if r.Object != nil {
			perObjs[r.Informer]++
		}
	}
	for name, b := range per {
		z := gz(1)(b.Bytes())
		fmt.Printf("%-12s %6d objects (list items and events): %5.0f B/object JSON, %4.0f B/object on disk\n", name, perObjs[name], float64(b.Len())/float64(perObjs[name]), float64(len(z))/float64(perObjs[name]))
	}
	report("JSON lines", jsonl.Bytes(), id)
	report("JSON lines + gzip -1", jsonl.Bytes(), gz(1))
	report("JSON lines + gzip -6", jsonl.Bytes(), gz(6))
	report("JSON lines + zstd fastest", jsonl.Bytes(), zs(zstd.SpeedFastest))
	report("JSON lines + zstd default", jsonl.Bytes(), zs(zstd.SpeedDefault))
	report("protobuf-delimited", proto.Bytes(), id)
	report("protobuf-delimited + gzip -1", proto.Bytes(), gz(1))
	report("protobuf-delimited + zstd", proto.Bytes(), zs(zstd.SpeedDefault))
}
