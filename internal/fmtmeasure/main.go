// Command fmtmeasure compares encodings of a recording (docs/recording.md,
// "Why protobuf frames in one zstd stream"): go run ./internal/fmtmeasure FILE.
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/s2"
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

// forms returns r as a JSON line (objects as JSON) and as a frame of the
// file's format (record JSON, then each object in protobuf when it has one).
func forms(r recording.Record) (line, frame []byte, objects int) {
	objs, err := r.Objects()
	if err != nil {
		panic(err)
	}
	raws := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		raws[i], _ = json.Marshal(o)
	}
	j := r
	j.ProtoKind, j.ProtoCount, j.Proto, j.Object, j.Items = "", 0, nil, nil, nil
	meta, _ := json.Marshal(j)
	if r.Kind == recording.KindList {
		j.Items = raws
	} else if len(raws) == 1 {
		j.Object = raws[0]
	}
	line, _ = json.Marshal(j)
	line = append(line, '\n')
	var pbs [][]byte
	for _, raw := range raws {
		if o := typed(raw); o != nil {
			pb, _ := o.Marshal()
			pbs = append(pbs, pb)
		} else {
			pbs = append(pbs, raw)
		}
	}
	frame = binary.AppendUvarint(nil, uint64(len(meta)))
	frame = append(frame, meta...)
	for _, pb := range pbs {
		frame = binary.AppendUvarint(frame, uint64(len(pb)))
		frame = append(frame, pb...)
	}
	return line, frame, len(objs)
}

func main() {
	rec, err := recording.Read(os.Args[1])
	if err != nil {
		panic(err)
	}
	var jsonl, proto bytes.Buffer
	events, objects := 0, 0
	per := map[string]*bytes.Buffer{}
	perObjs := map[string]int{}
	for _, r := range rec.Records {
		line, frame, n := forms(r)
		jsonl.Write(line)
		proto.Write(frame)
		objects += n
		if r.Kind == recording.KindEvent {
			events++
		}
		if r.Kind != recording.KindEvent && r.Kind != recording.KindList {
			continue
		}
		if per[r.Informer] == nil {
			per[r.Informer] = &bytes.Buffer{}
		}
		per[r.Informer].Write(frame)
		perObjs[r.Informer] += n
	}
	fmt.Printf("%d records, %d watch events, %d objects\n", len(rec.Records), events, objects)
	report := func(name string, in []byte, f func([]byte) []byte) {
		start := time.Now()
		out := f(in)
		el := time.Since(start)
		fmt.Printf("%-34s %9d bytes  %6.0f B/object  %6.1f MB/s\n", name, len(out), float64(len(out))/float64(objects), float64(len(in))/el.Seconds()/1e6)
	}
	id := func(b []byte) []byte { return b }
	gz := func(level int) func([]byte) []byte {
		return func(b []byte) []byte {
			var o bytes.Buffer
			w, _ := gzip.NewWriterLevel(&o, level)
			w.Write(b)
			w.Close()
			return o.Bytes()
		}
	}
	kgz := func(b []byte) []byte {
		var o bytes.Buffer
		w, _ := kgzip.NewWriterLevel(&o, kgzip.BestSpeed)
		w.Write(b)
		w.Close()
		return o.Bytes()
	}
	zs := func(level zstd.EncoderLevel) func([]byte) []byte {
		return func(b []byte) []byte {
			e, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(level))
			return e.EncodeAll(b, nil)
		}
	}
	for name, b := range per {
		z := zs(zstd.SpeedFastest)(b.Bytes())
		fmt.Printf("%-12s %6d objects (list items and events): %5.0f B/object on disk\n", name, perObjs[name], float64(len(z))/float64(perObjs[name]))
	}
	report("JSON lines", jsonl.Bytes(), id)
	report("JSON lines + gzip -1", jsonl.Bytes(), gz(1))
	report("JSON lines + gzip -1 (klauspost)", jsonl.Bytes(), kgz)
	report("JSON lines + gzip -6", jsonl.Bytes(), gz(6))
	report("JSON lines + zstd fastest", jsonl.Bytes(), zs(zstd.SpeedFastest))
	report("JSON lines + zstd default", jsonl.Bytes(), zs(zstd.SpeedDefault))
	report("protobuf-delimited", proto.Bytes(), id)
	report("protobuf-delimited + gzip -1", proto.Bytes(), gz(1))
	report("protobuf-delimited + gzip -1 (klauspost)", proto.Bytes(), kgz)
	report("protobuf-delimited + s2", proto.Bytes(), func(b []byte) []byte {
		var o bytes.Buffer
		w := s2.NewWriter(&o, s2.WriterConcurrency(1))
		w.Write(b)
		w.Close()
		return o.Bytes()
	})
	report("protobuf-delimited + zstd fastest", proto.Bytes(), zs(zstd.SpeedFastest))
	report("protobuf-delimited + zstd default", proto.Bytes(), zs(zstd.SpeedDefault))
}
