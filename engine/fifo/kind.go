package fifo

import (
	"fmt"
	"strings"
)

// Kind names a queue implementation. It is the one queue-kind type of
// informtop: engine.QueueKind is this type, snapshots and reports carry it,
// and it reads and writes as text ("RealFIFO", "DeltaFIFO").
type Kind int

const (
	// KindRealFIFO is client-go v0.37's default queue; the zero value.
	KindRealFIFO Kind = iota
	// KindDeltaFIFO is the classic queue of coalesced deltas per key.
	KindDeltaFIFO
)

// String is the name shown in the UI and written to JSON.
func (k Kind) String() string {
	switch k {
	case KindRealFIFO:
		return "RealFIFO"
	case KindDeltaFIFO:
		return "DeltaFIFO"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Valid reports whether k is a queue informtop has.
func (k Kind) Valid() bool { return k == KindRealFIFO || k == KindDeltaFIFO }

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("no queue kind %d", int(k))
	}
	return []byte(k.String()), nil
}

// UnmarshalText reads a kind's name, in any case; "real" and "delta" are
// accepted as short forms.
func (k *Kind) UnmarshalText(text []byte) error {
	switch strings.ToLower(string(text)) {
	case "realfifo", "real":
		*k = KindRealFIFO
	case "deltafifo", "delta":
		*k = KindDeltaFIFO
	default:
		return fmt.Errorf("unknown queue %q: use RealFIFO or DeltaFIFO", text)
	}
	return nil
}
