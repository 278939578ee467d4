package recording

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// sample writes a recording with a page, a watch and n events, a Secret
// among the objects, and returns its bytes.
func sample(t testing.TB, n int) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.rec.zst")
	w, err := Create(path, Header{Informtop: "test", Source: "unit", Informers: []Informer{{Name: "secrets", Resource: "secrets", Queue: "RealFIFO"}}})
	if err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "1",
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Data:       map[string][]byte{"password": []byte("hunter2")},
		StringData: map[string]string{"token": "abc"},
	}
	list := &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: []corev1.Secret{*secret}}
	w.add(entry{rec: Record{T: 1, Kind: KindList, Informer: "secrets", Options: &metav1.ListOptions{ResourceVersion: "0"}, RV: "1"}, list: list})
	w.add(entry{rec: Record{T: 2, Kind: KindWatch, Informer: "secrets", Options: &metav1.ListOptions{ResourceVersion: "1"}}})
	for i := range n {
		s := secret.DeepCopy()
		s.ResourceVersion = fmt.Sprint(i + 2)
		w.add(entry{rec: Record{T: int64(3 + i), Kind: KindEvent, Informer: "secrets", Type: "MODIFIED"}, obj: s})
	}
	w.Call("secrets", "slow", "OnUpdate", "ns/s", "2", 20*time.Millisecond)
	w.add(entry{rec: Record{T: int64(n + 10), Kind: KindClose, Informer: "secrets", By: "server"}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestRoundTrip: what is written reads back in order, with Secret values
// redacted and managedFields gone.
func TestRoundTrip(t *testing.T) {
	path, b := sample(t, 5)
	rec, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stop != nil || rec.Size != int64(len(b)) || rec.Header.Version != Version || rec.Header.Format != FormatName {
		t.Fatalf("stop %+v, size %d of %d, header %+v", rec.Stop, rec.Size, len(b), rec.Header)
	}
	var kinds []string
	for _, r := range rec.Records {
		kinds = append(kinds, string(r.Kind))
	}
	if got := strings.Join(kinds, ","); got != "list,watch,event,event,event,event,event,call,close" {
		t.Fatalf("records %s", got)
	}
	all := decompressed(t, path)
	if strings.Contains(all, "hunter2") || strings.Contains(all, "aHVudGVyMg") || strings.Contains(all, `"abc"`) || strings.Contains(all, "managedFields") {
		t.Errorf("secret data or managedFields reached the file:\n%s", all)
	}
	page := string(rec.Records[0].Items[0])
	if !strings.Contains(page, `"kind":"Secret"`) || !strings.Contains(page, "redacted, 7 bytes") {
		t.Errorf("page item %s", page)
	}
	if c := rec.Records[7]; c.Listener != "slow" || c.Callback != "OnUpdate" || time.Duration(c.Duration) != 20*time.Millisecond {
		t.Errorf("call record %+v", c)
	}
}

// TestTruncatedAnywhere: a file cut at any byte never panics; it replays
// the records complete before the cut and says where it stopped, or is
// refused when even the header is incomplete.
func TestTruncatedAnywhere(t *testing.T) {
	path, b := sample(t, 400)
	full, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cuts := []int{0, 1, 9, 10, len(b) - 1, len(b) - 8}
	for range 300 {
		cuts = append(cuts, rng.IntN(len(b)))
	}
	sawPartial := false
	for _, n := range cuts {
		rec, err := Decode(bytes.NewReader(b[:n]), "cut.rec.zst")
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "cut.rec.zst ") || !strings.Contains(err.Error(), "at byte") {
				t.Fatalf("cut at %d: %v, want a sentence naming the file and the byte", n, err)
			}
			continue
		}
		if rec.Stop == nil {
			t.Fatalf("cut at %d of %d reads as complete", n, len(b))
		}
		if rec.Stop.Records != len(rec.Records) || rec.Stop.Offset > int64(n) || len(rec.Records) > len(full.Records) {
			t.Fatalf("cut at %d: stop %+v with %d records", n, rec.Stop, len(rec.Records))
		}
		for i, r := range rec.Records {
			if r.T != full.Records[i].T || r.Kind != full.Records[i].Kind {
				t.Fatalf("cut at %d: record %d is %+v, want %+v", n, i, r, full.Records[i])
			}
		}
		if len(rec.Records) > 0 && len(rec.Records) < len(full.Records) {
			sawPartial = true
		}
		if s := rec.Stop.Sentence("cut.rec.zst"); !strings.Contains(s, fmt.Sprintf("byte %d", rec.Stop.Offset)) {
			t.Fatalf("stop sentence %q", s)
		}
	}
	if !sawPartial {
		t.Error("no cut replayed part of the recording: the writer does not flush as it goes")
	}
}

// TestRefusals: a foreign file, a corrupt one, another version, a path
// that cannot be written: each one sentence naming the file.
func TestRefusals(t *testing.T) {
	_, b := sample(t, 50)
	zst := func(s string) []byte {
		var buf bytes.Buffer
		zw, _ := zstd.NewWriter(&buf)
		zw.Write([]byte(s))
		zw.Close()
		return buf.Bytes()
	}
	gz := func(s string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(s))
		zw.Close()
		return buf.Bytes()
	}
	const header = `{"format":"informtop-recording","version":2,"informers":[{"name":"pods"}]}` + "\n"
	frame := func(s string) string { return string(binary.AppendUvarint(nil, uint64(len(s)))) + s }
	corrupt := bytes.Clone(b)
	for i := len(b) / 2; i < len(b)/2+16; i++ {
		corrupt[i] ^= 0x5a
	}
	cases := []struct {
		name string
		data []byte
		want []string
	}{
		{"text", []byte("apiVersion: v1\nkind: Pod\n"), []string{"f.rec.zst is not an informtop recording", "at byte 0"}},
		{"gzip", gz("{\"hello\":1}\n"), []string{"f.rec.zst is not an informtop recording (it is gzip-compressed, and recordings are zstd-compressed)", "at byte 0"}},
		{"version 1", gz(`{"format":"informtop-recording","version":1,"informtop":"v0.1.0"}` + "\n{}\n"), []string{"f.rec.zst is a version 1 recording (written by informtop v0.1.0)", "reads version 2 only"}},
		{"plain text", []byte("hello\n"), []string{"f.rec.zst is not an informtop recording (it is not zstd-compressed)", "at byte 0"}},
		{"other zstd", zst("{\"hello\":1}\n"), []string{"f.rec.zst is not an informtop recording", "at byte"}},
		{"corrupt", corrupt, []string{"f.rec.zst is corrupt", "at byte"}},
		{"newer", zst(`{"format":"informtop-recording","version":3,"informtop":"v9.0.0"}` + "\n"), []string{"f.rec.zst is a version 3 recording (written by informtop v9.0.0)", "reads version 2 only"}},
		{"bad record", zst(header + frame(`{"t":1,"k":"event","i":"nodes"}`)), []string{"f.rec.zst is corrupt: a record names informer \"nodes\", which the header does not list (record 1, at byte 75 of the decompressed stream); the file was damaged"}},
		{"unknown kind", zst(header + frame(`{"t":1,"k":"event","i":"pods","pbk":"example.com/v1/Widget","pb":1}`) + frame("x")), []string{"f.rec.zst is corrupt: a record has objects of kind \"example.com/v1/Widget\", which this informtop cannot decode (record 1, at byte 75 of the decompressed stream)"}},
		{"two objects, one event", zst(header + frame(`{"t":1,"k":"event","i":"pods","type":"ADDED","pbk":"v1/Pod","pb":2}`) + frame("") + frame("")), []string{"f.rec.zst is corrupt: an event holds 2 objects, not one (record 1, at byte 75 of the decompressed stream)"}},
		{"objects of no kind", zst(header + frame(`{"t":1,"k":"list","i":"pods","pb":1}`) + frame("")), []string{"f.rec.zst is corrupt: a record has protobuf objects but names no kind (record 1, at byte 75 of the decompressed stream)"}},
		{"huge length", zst(header + "\xff\xff\xff\xff\xff\xff\x7f"), []string{"f.rec.zst is corrupt or hostile: a record says it takes 563 TB, more than the 268 MB a record may take (record 1, at byte 75 of the decompressed stream); if informtop recorded a list that large, replay it with a higher --max-record"}},
		{"not JSON", zst(header + frame(`{"t":1,`)), []string{"f.rec.zst is corrupt: a record is not valid JSON (unexpected end of JSON input) (record 1, at byte 75 of the decompressed stream)"}},
	}
	for _, c := range cases {
		_, err := Decode(bytes.NewReader(c.data), "f.rec.zst")
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
	}
	var fe *FileError
	if _, err := Decode(bytes.NewReader(corrupt), "f"); !errors.As(err, &fe) || fe.Offset <= 0 {
		t.Errorf("corrupt file: %v, want the byte offset where it turned bad", err)
	}
	dir := filepath.Join(t.TempDir(), "missing", "r.rec.zst")
	if _, err := Create(dir, Header{}); err == nil || !strings.Contains(err.Error(), "cannot write the recording "+dir) || !strings.Contains(err.Error(), "-o") {
		t.Errorf("unwritable path: %v", err)
	}
	if _, err := Read(filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "cannot read the recording") {
		t.Errorf("missing file: %v", err)
	}
}

// TestFallingBehindIsMarked: when the disk falls behind, records are
// dropped rather than holding up the reflector, counted, and marked in the
// file with a gap record where they were lost.
func TestFallingBehindIsMarked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slow.rec.zst")
	w, err := create(path, Header{Informers: []Informer{{Name: "pods"}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The writer's goroutine is not started yet: the disk is "stuck".
	for i := range 3 {
		w.add(entry{rec: Record{T: int64(i), Kind: KindClose, Informer: "pods", By: "server"}})
	}
	if st := w.Stats(); st.Dropped != 2 || st.Records != 1 {
		t.Fatalf("stats %+v, want 1 buffered and 2 dropped", st)
	}
	queued, _, _ := w.drain(nil)
	w.write(&queued[0]) // the disk catches up with one
	w.add(entry{rec: Record{T: 9, Kind: KindClose, Informer: "pods", By: "server"}})
	go w.loop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range rec.Records {
		kinds = append(kinds, fmt.Sprintf("%s@%d/%d", r.Kind, r.T, r.Dropped))
	}
	if got := strings.Join(kinds, " "); got != "close@0/0 gap@9/2 close@9/0" {
		t.Errorf("records %s, want the gap of 2 marked before the next record", got)
	}
}

// FuzzDecode: no input makes Decode panic or hang; whatever it returns is
// a recording or a sentence naming the file.
func FuzzDecode(f *testing.F) {
	_, b := sample(f, 3)
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte("k8s\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Decode(bytes.NewReader(data), "fuzz.rec.zst")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.rec.zst ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, r := range rec.Records {
			_, _ = r.Objects()
		}
	})
}
