package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"google.golang.org/protobuf/encoding/protowire"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/informtop/informtop/agent/redact"
)

// protobufMagic starts every Kubernetes protobuf object on the wire.
var protobufMagic = []byte("k8s\x00")

// fromWire stores in r the object the API server sent as raw: protobuf
// objects as they came, less their managedFields (cut from the bytes,
// without decoding the rest); what a view would redact (a Secret, an
// object whose last-applied copies one) and JSON decoded, redacted and
// stored as JSON. A protobuf object is returned as pieces which, one
// after the other, are its bytes: slices of raw and of scratch, so that
// nothing is copied before the compressor (the next call reuses scratch).
// It runs on the writer's goroutine.
func fromWire(resource string, raw []byte, r *Record, scratch *wireScratch) (pieces [][]byte) {
	if !bytes.HasPrefix(raw, protobufMagic) {
		r.Object = jsonFromWire(resource, raw)
		return nil
	}
	k, body, err := scratch.envelope(raw[len(protobufMagic):])
	if err != nil {
		r.Object = errorObject(fmt.Errorf("the API server sent an object that does not decode: %w", err))
		return nil
	}
	if !k.known {
		r.Object = errorObject(fmt.Errorf("the API server sent a %s, which this informtop does not know", k.gvk.Kind))
		return nil
	}
	// The bytes are kept only when the view would show them whole: the
	// decision is the views' own, from the kind and the annotations read
	// in place.
	needed, err := scratch.needsRedaction(redact.Current(), resource, k, body)
	if err != nil {
		r.Object = errorObject(fmt.Errorf("a %s from the API server is malformed: %w", k.gvk.Kind, err))
		return nil
	}
	if needed {
		obj, err := scheme.Scheme.New(k.gvk)
		if err == nil {
			err = unmarshalProto(obj, body)
		}
		if err != nil {
			r.Object = errorObject(err)
			return nil
		}
		r.Object = encodeObject(resource, obj)
		return nil
	}
	pieces, err = scratch.withoutManagedFields(k, body)
	if err != nil {
		r.Object = errorObject(err)
		return nil
	}
	r.ProtoKind = k.protoKind
	return pieces
}

// needsRedaction reports whether b, the protobuf of an object of kind k
// from an informer of resource, must be redacted before it is stored
// (redact.Verdict.Needed), reading its annotations in place. Only the
// whole-object annotations are handed to the decision, copied out: an
// object without any costs a walk over its metadata and no allocation.
func (s *wireScratch) needsRedaction(p redact.Policy, resource string, k wireKind, b []byte) (bool, error) {
	if p.Decide(resource, k.gvk.Kind, nil).Secret {
		return true, nil
	}
	if k.metaNum == 0 {
		return false, nil
	}
	s.found = s.found[:0]
	for off := 0; off < len(b); {
		f, err := nextField(b[off:])
		if err != nil {
			return false, err
		}
		if f.num == k.metaNum && f.typ == protowire.BytesType {
			if err := s.wholeObjectAnnotations(p, b[off+f.value:off+f.size]); err != nil {
				return false, err
			}
		}
		off += f.size
	}
	if len(s.found) == 0 {
		return false, nil
	}
	v := p.Decide(resource, k.gvk.Kind, func(yield func(string, string) bool) {
		for _, a := range s.found {
			// The value is read in place, not copied (a last-applied copy
			// is kilobytes, on every event of an applied object): Decide
			// keeps no string it is given, and the wire's bytes do not
			// change while it reads them.
			if !yield(string(a[0]), unsafe.String(unsafe.SliceData(a[1]), len(a[1]))) {
				return
			}
		}
	})
	return v.Needed(), nil
}

// wholeObjectAnnotations appends to s.found the whole-object annotations
// of md, an ObjectMeta's bytes, as key and value.
func (s *wireScratch) wholeObjectAnnotations(p redact.Policy, md []byte) error {
	for off := 0; off < len(md); {
		f, err := nextField(md[off:])
		if err != nil {
			return err
		}
		if f.num == annotationsNum && f.typ == protowire.BytesType {
			var kv [2][]byte
			entry := md[off+f.value : off+f.size]
			for e := 0; e < len(entry); {
				ef, err := nextField(entry[e:])
				if err != nil {
					return err
				}
				if (ef.num == 1 || ef.num == 2) && ef.typ == protowire.BytesType {
					kv[ef.num-1] = entry[e+ef.value : e+ef.size]
				}
				e += ef.size
			}
			if p.WholeObjectAnnotation(string(kv[0])) {
				s.found = append(s.found, kv)
			}
		}
		off += f.size
	}
	return nil
}

// annotationsNum is ObjectMeta's annotations field number.
var annotationsNum = func() protowire.Number {
	f, _ := reflect.TypeFor[metav1.ObjectMeta]().FieldByName("Annotations")
	return protoNumber(f.Tag.Get("protobuf"))
}()

// wireKind is what the writer needs to know about a kind on the wire,
// worked out once per kind.
type wireKind struct {
	apiVersion string
	gvk        schema.GroupVersionKind
	protoKind  string           // "apiVersion/kind", as Record.ProtoKind
	known      bool             // this build's scheme has the kind
	metaNum    protowire.Number // the field holding its ObjectMeta, 0 if none
}

func newWireKind(apiVersion, kind string) wireKind {
	gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
	k := wireKind{apiVersion: apiVersion, gvk: gvk, protoKind: protoKindOf(gvk), known: scheme.Scheme.Recognizes(gvk)}
	if k.known {
		k.metaNum = metadataField(gvk)
	}
	return k
}

// envelope reads a runtime.Unknown (what follows the magic) in place: its
// TypeMeta, as a kind, and its raw object. The kind of the previous
// object is reused when it is the same, as it almost always is.
func (s *wireScratch) envelope(b []byte) (wireKind, []byte, error) {
	var apiVersion, kind, raw []byte
	err := fields(b, func(num protowire.Number, v []byte) error {
		switch num {
		case 1: // typeMeta
			return fields(v, func(num protowire.Number, v []byte) error {
				switch num {
				case 1:
					apiVersion = v
				case 2:
					kind = v
				}
				return nil
			})
		case 2: // raw
			raw = v
		}
		return nil
	})
	if err == nil && len(kind) == 0 {
		err = fmt.Errorf("it names no kind")
	}
	if err != nil {
		return wireKind{}, nil, err
	}
	if s.last.protoKind == "" || string(apiVersion) != s.last.apiVersion || string(kind) != s.last.gvk.Kind {
		s.last = newWireKind(string(apiVersion), string(kind))
	}
	return s.last, raw, nil
}

// fields calls f with each length-delimited field of the message b.
func fields(b []byte, f func(protowire.Number, []byte) error) error {
	for len(b) > 0 {
		fl, err := nextField(b)
		if err != nil {
			return err
		}
		if fl.typ == protowire.BytesType {
			if err := f(fl.num, b[fl.value:fl.size]); err != nil {
				return err
			}
		}
		b = b[fl.size:]
	}
	return nil
}

// field is where one field lies at the start of a message's bytes:
// b[:size] is all of it, and for a length-delimited one b[value:size] is
// its content.
type field struct {
	num         protowire.Number
	typ         protowire.Type
	value, size int
}

// nextField reads the field at the start of b. Almost every field of an
// object's metadata is length-delimited, with a tag and a length of one
// or two bytes each: those are read here, the rest by protowire.
func nextField(b []byte) (field, error) {
	tag, n := shortVarint(b)
	if n > 0 && protowire.Type(tag&7) == protowire.BytesType && tag>>3 > 0 {
		l, m := shortVarint(b[n:])
		if m > 0 {
			size := n + m + int(l)
			if size > len(b) {
				return field{}, protowire.ParseError(-1) // io.ErrUnexpectedEOF, as protowire says it
			}
			return field{num: protowire.Number(tag >> 3), typ: protowire.BytesType, value: n + m, size: size}, nil
		}
	}
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return field{}, protowire.ParseError(n)
	}
	m := protowire.ConsumeFieldValue(num, typ, b[n:])
	if m < 0 {
		return field{}, protowire.ParseError(m)
	}
	f := field{num: num, typ: typ, value: n, size: n + m}
	if typ == protowire.BytesType {
		_, lenLen := protowire.ConsumeVarint(b[n:])
		f.value += lenLen
	}
	return f, nil
}

// shortVarint reads a varint of one or two bytes; n is 0 for any other.
func shortVarint(b []byte) (v uint64, n int) {
	switch {
	case len(b) >= 1 && b[0] < 0x80:
		return uint64(b[0]), 1
	case len(b) >= 2 && b[1] < 0x80:
		return uint64(b[0]&0x7f) | uint64(b[1])<<7, 2
	}
	return 0, 0
}

func unmarshalProto(obj runtime.Object, b []byte) error {
	u, ok := obj.(protoUnmarshaler)
	if !ok {
		return fmt.Errorf("a %T has no protobuf form", obj)
	}
	return u.Unmarshal(b)
}

// jsonFromWire is a JSON object of resource as the source shows it.
func jsonFromWire(resource string, raw []byte) json.RawMessage {
	m, _, err := redact.Map(resource, json.RawMessage(raw))
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
	pieces [][]byte
	head   []byte      // rewritten tags and lengths
	last   wireKind    // the previous object's kind
	found  [][2][]byte // an object's whole-object annotations, key and value
}

// withoutManagedFields is b, the protobuf of an object of kind k, without
// metadata.managedFields, as pieces: slices of b between the fields cut
// out, and of s.head where a length changed.
func (s *wireScratch) withoutManagedFields(k wireKind, b []byte) ([][]byte, error) {
	s.pieces, s.head = s.pieces[:0], s.head[:0]
	if k.metaNum == 0 {
		return append(s.pieces, b), nil
	}
	from := 0 // b[from:] is not yet in pieces
	for off := 0; off < len(b); {
		f, err := nextField(b[off:])
		if err != nil {
			return nil, fmt.Errorf("a %s from the API server is malformed: %w", k.gvk.Kind, err)
		}
		if f.num == k.metaNum && f.typ == protowire.BytesType {
			if err := s.cutMetadata(b[from:off], f.num, b[off+f.value:off+f.size]); err != nil {
				return nil, fmt.Errorf("a %s from the API server is malformed: %w", k.gvk.Kind, err)
			}
			from = off + f.size
		}
		off += f.size
	}
	return append(s.pieces, b[from:]), nil
}

// cutMetadata appends to s.pieces before, then the metadata field num
// whose content is md, without its managedFields.
func (s *wireScratch) cutMetadata(before []byte, num protowire.Number, md []byte) error {
	kept, run := 0, -1          // run: where the current run of kept fields began
	header := len(s.pieces) + 1 // its piece, set once the new length is known
	s.pieces = append(s.pieces, before, nil)
	for off := 0; off < len(md); {
		f, err := nextField(md[off:])
		if err != nil {
			return err
		}
		cut := f.num == managedFieldsNum
		switch {
		case !cut && run < 0:
			run = off
		case cut && run >= 0:
			s.pieces = append(s.pieces, md[run:off])
			run = -1
		}
		if !cut {
			kept += f.size
		}
		off += f.size
	}
	if run >= 0 {
		s.pieces = append(s.pieces, md[run:])
	}
	start := len(s.head)
	s.head = protowire.AppendTag(s.head, num, protowire.BytesType)
	s.head = protowire.AppendVarint(s.head, uint64(kept))
	s.pieces[header] = s.head[start:]
	return nil
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
