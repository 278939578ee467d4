package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informtop/informtop/redact"
)

// protobufMagic starts every Kubernetes protobuf object on the wire.
var protobufMagic = []byte("k8s\x00")

// fromWire stores in r the object the API server sent as raw: protobuf
// objects as they came, less their managedFields (cut from the bytes,
// without decoding the rest); Secrets and JSON decoded, redacted and
// stored as JSON. It runs on the writer's goroutine; what it stores in
// r.Proto lives in scratch, which the next call reuses.
func fromWire(raw []byte, r *Record, scratch *wireScratch) {
	if !bytes.HasPrefix(raw, protobufMagic) {
		r.Object = jsonFromWire(raw)
		return
	}
	apiVersion, kind, body, err := envelope(raw[len(protobufMagic):])
	if err != nil {
		r.Object = errorObject(fmt.Errorf("the API server sent an object that does not decode: %w", err))
		return
	}
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	if !scheme.Scheme.Recognizes(gvk) {
		r.Object = errorObject(fmt.Errorf("the API server sent a %s, which this informtop does not know", kind))
		return
	}
	if gvk.Group == "" && gvk.Kind == "Secret" {
		obj, err := scheme.Scheme.New(gvk)
		if err == nil {
			err = unmarshalProto(obj, body)
		}
		if err != nil {
			r.Object = errorObject(err)
			return
		}
		r.Object = encodeObject(obj)
		return
	}
	pb, err := scratch.withoutManagedFields(gvk, body)
	if err != nil {
		r.Object = errorObject(err)
		return
	}
	r.ProtoKind, r.Proto = protoKind(apiVersion, kind), append(scratch.protos[:0], pb)
	scratch.protos = r.Proto
}

// protoKind is "apiVersion/kind", made once per kind.
func protoKind(apiVersion, kind string) string {
	k := [2]string{apiVersion, kind}
	if s, ok := protoKinds.Load(k); ok {
		return s.(string)
	}
	s := apiVersion + "/" + kind
	protoKinds.Store(k, s)
	return s
}

var protoKinds sync.Map // [apiVersion, kind] → "apiVersion/kind"

// envelope reads a runtime.Unknown (what follows the magic) in place: its
// TypeMeta and its raw object.
func envelope(b []byte) (apiVersion, kind string, raw []byte, err error) {
	err = fields(b, func(num protowire.Number, v []byte) error {
		switch num {
		case 1: // typeMeta
			return fields(v, func(num protowire.Number, v []byte) error {
				switch num {
				case 1:
					apiVersion = string(v)
				case 2:
					kind = string(v)
				}
				return nil
			})
		case 2: // raw
			raw = v
		}
		return nil
	})
	if err == nil && kind == "" {
		err = fmt.Errorf("it names no kind")
	}
	return apiVersion, kind, raw, err
}

// fields calls f with each length-delimited field of the message b.
func fields(b []byte, f func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return protowire.ParseError(m)
		}
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			if err := f(num, v); err != nil {
				return err
			}
		}
		b = b[n+m:]
	}
	return nil
}

func unmarshalProto(obj runtime.Object, b []byte) error {
	u, ok := obj.(protoUnmarshaler)
	if !ok {
		return fmt.Errorf("a %T has no protobuf form", obj)
	}
	return u.Unmarshal(b)
}

// jsonFromWire is a JSON object as the source shows it.
func jsonFromWire(raw []byte) json.RawMessage {
	m, _, err := redact.Map(json.RawMessage(raw))
	if err == nil && m == nil {
		err = fmt.Errorf("it is not a JSON object")
	}
	if err != nil {
		return errorObject(fmt.Errorf("the API server sent an object that does not decode: %w", err))
	}
	b, err := json.Marshal(m)
	if err != nil {
		return errorObject(err)
	}
	return b
}

func errorObject(err error) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"error": err.Error()})
	return b
}

// wireScratch is the writer goroutine's buffers for cutting
// managedFields, reused from one object to the next.
type wireScratch struct {
	out, meta []byte
	protos    [][]byte
}

// withoutManagedFields is b, the protobuf of an object of kind gvk,
// without metadata.managedFields. The result is in s.out.
func (s *wireScratch) withoutManagedFields(gvk schema.GroupVersionKind, b []byte) ([]byte, error) {
	metaNum := metadataField(gvk)
	if metaNum == 0 {
		return b, nil
	}
	s.out = s.out[:0]
	for rest := b; len(rest) > 0; {
		num, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			return nil, fmt.Errorf("a %s from the API server is malformed: %w", gvk.Kind, protowire.ParseError(n))
		}
		m := protowire.ConsumeFieldValue(num, typ, rest[n:])
		if m < 0 {
			return nil, fmt.Errorf("a %s from the API server is malformed: %w", gvk.Kind, protowire.ParseError(m))
		}
		if num == metaNum && typ == protowire.BytesType {
			md, _ := protowire.ConsumeBytes(rest[n:])
			var err error
			if s.meta, err = dropField(s.meta[:0], md, managedFieldsNum); err != nil {
				return nil, fmt.Errorf("a %s from the API server is malformed: %w", gvk.Kind, err)
			}
			s.out = protowire.AppendTag(s.out, num, typ)
			s.out = protowire.AppendBytes(s.out, s.meta)
		} else {
			s.out = append(s.out, rest[:n+m]...)
		}
		rest = rest[n+m:]
	}
	return s.out, nil
}

// dropField appends to out the message b without its fields numbered num.
func dropField(out, b []byte, num protowire.Number) ([]byte, error) {
	for rest := b; len(rest) > 0; {
		n2, typ, n := protowire.ConsumeTag(rest)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(n2, typ, rest[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		if n2 != num {
			out = append(out, rest[:n+m]...)
		}
		rest = rest[n+m:]
	}
	return out, nil
}

// managedFieldsNum is ObjectMeta's managedFields field number.
var managedFieldsNum = func() protowire.Number {
	f, _ := reflect.TypeFor[metav1.ObjectMeta]().FieldByName("ManagedFields")
	return protoNumber(f.Tag.Get("protobuf"))
}()

// metadataFields caches metadataField by kind.
var metadataFields sync.Map // schema.GroupVersionKind → protowire.Number

// metadataField is the field number of gvk's ObjectMeta, 0 if it has none.
func metadataField(gvk schema.GroupVersionKind) protowire.Number {
	if n, ok := metadataFields.Load(gvk); ok {
		return n.(protowire.Number)
	}
	var num protowire.Number
	if obj, err := scheme.Scheme.New(gvk); err == nil {
		t := reflect.TypeOf(obj)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() == reflect.Struct {
			if f, ok := t.FieldByName("ObjectMeta"); ok && f.Type == reflect.TypeFor[metav1.ObjectMeta]() {
				num = protoNumber(f.Tag.Get("protobuf"))
			}
		}
	}
	metadataFields.Store(gvk, num)
	return num
}

// protoNumber reads the field number from a generated struct tag such as
// "bytes,1,opt,name=metadata".
func protoNumber(tag string) protowire.Number {
	parts := strings.Split(tag, ",")
	if len(parts) < 2 {
		return 0
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil {
		return 0
	}
	return protowire.Number(n)
}
