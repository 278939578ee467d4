package fifo

import (
	"encoding/json"
	"testing"
)

func TestKindText(t *testing.T) {
	for _, k := range []Kind{KindRealFIFO, KindDeltaFIFO} {
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		var back Kind = 7
		if err := json.Unmarshal(b, &back); err != nil || back != k {
			t.Errorf("%s: %s read back as %v, %v", k, b, back, err)
		}
	}
	var k Kind
	if err := k.UnmarshalText([]byte("delta")); err != nil || k != KindDeltaFIFO {
		t.Errorf("delta: %v %v", k, err)
	}
	if err := k.UnmarshalText([]byte("LIFO")); err == nil {
		t.Error("LIFO accepted")
	}
	if _, err := Kind(7).MarshalText(); err == nil || Kind(7).Valid() {
		t.Error("an unknown kind was written")
	}
}
