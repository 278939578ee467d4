package recording

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// parseRecord reads a record's JSON into rec. The records a recording
// holds by the million — events whose object follows in protobuf,
// callbacks, closes — are flat objects of plain strings and integers;
// those are read here without reflection, the rest by encoding/json. Both
// refuse a field a Record does not have: in a file whose frame has no
// checksum, a name that changed is how a damaged record shows.
func parseRecord(b []byte, rec *Record, names *interner) error {
	if parseFlat(b, rec, names) {
		return nil
	}
	*rec = Record{}
	// Looked at in place, before anything is decoded (and copied).
	if err := eachField(b, checkField); err != nil {
		return err
	}
	var syntax *json.SyntaxError
	switch err := json.Unmarshal(b, rec); {
	case errors.As(err, &syntax):
		return fmt.Errorf("a record is not valid JSON (%v)", err)
	case err != nil:
		return fmt.Errorf("a record is not valid (%v)", err)
	}
	return nil
}

// checkField refuses a name a Record does not have (as written: an
// escaped or differently cased one was not written by informtop) and a
// value larger than its field may take. whole says the value is all
// there; a part of one is checked against the bound only.
func checkField(key, value []byte, whole bool) error {
	if !recordFields[string(key)] {
		name := string(key)
		if len(name) > 64 {
			name = name[:64] + "…"
		}
		return fmt.Errorf("a record has a field %s, which records do not have", strconv.Quote(name))
	}
	switch string(key) {
	case "obj":
		return checkObject(value, whole)
	case "items":
		return eachElement(value, checkObject)
	}
	limit := fieldLimit(string(key))
	if limit > 0 && len(value) > limit {
		return &FileError{Problem: fmt.Sprintf("is corrupt or hostile: a record's %q is longer than the %s such a field may take", key, humanize.Bytes(uint64(limit))), Fix: fixDamaged}
	}
	return nil
}

// fieldLimit is the most a record's field may take as JSON, quotes
// included; 0 for objects, which only the record's bound limits.
func fieldLimit(key string) int {
	switch key {
	case "items", "obj":
		return 0
	case "opts":
		return maxOptions
	case "err":
		return maxFailure
	}
	return MaxField
}

// eachField calls f with each member of the JSON object b: its name as
// written between the quotes, and its value's bytes. It stops at the
// first error f returns, and quietly where b stops being an object it
// can follow: json.Unmarshal then says what is wrong. Where b ends inside
// a value (b is the start of a record still being read), f gets what
// there is of it, whole false.
func eachField(b []byte, f func(key, value []byte, whole bool) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		end := skipString(b, i)
		if end < 0 {
			// A name longer than any is refused without its end.
			if len(b)-i > 64 {
				return f(b[i+1:i+65], nil, false)
			}
			return nil
		}
		key := b[i+1 : end-1]
		if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
			return nil
		}
		i = skipSpace(b, i+1)
		end = skipValue(b, i)
		if end < 0 {
			if i < len(b) {
				return f(key, b[i:], false)
			}
			return nil
		}
		if err := f(key, b[i:end], true); err != nil {
			return err
		}
		if i = skipSpace(b, end); i >= len(b) || b[i] != ',' {
			return nil
		}
		i = skipSpace(b, i+1)
	}
	return nil
}

// checkObject refuses an object (or the start of one) whose metadata
// holds a field longer than MaxField, before it is decoded, which costs
// its size many times over.
func checkObject(raw []byte, _ bool) error {
	if kind, field := longJSONMetadata(raw); field != "" {
		return &FileError{Problem: fmt.Sprintf("is corrupt or hostile: a %s's %s is longer than the %s such a field may take", kind, field, humanize.Bytes(MaxField)), Fix: fixDamaged}
	}
	return nil
}

// eachElement calls f with each element of the JSON array b, as
// eachField does with an object's members.
func eachElement(b []byte, f func(value []byte, whole bool) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	for i = skipSpace(b, i+1); i < len(b) && b[i] != ']'; i = skipSpace(b, i+1) {
		end := skipValue(b, i)
		if end < 0 {
			return f(b[i:], false)
		}
		if err := f(b[i:end], true); err != nil {
			return err
		}
		if i = skipSpace(b, end); i >= len(b) || b[i] != ',' {
			return nil
		}
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the end of the JSON string starting at b[i] (just
// past its closing quote), -1 if it does not end.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// skipValue returns the end of the JSON value starting at b[i], -1 if
// it does not end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				i--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[i])) {
		i++
	}
	return i
}

// recordFields are the JSON names of Record's fields.
var recordFields = map[string]bool{
	"t": true, "k": true, "i": true, "opts": true, "err": true, "rv": true, "continue": true, "items": true,
	"type": true, "obj": true, "pbk": true, "pb": true, "by": true, "l": true, "cb": true, "key": true, "d": true, "dropped": true,
}

// parseFlat reads b into rec when it is a JSON object of plain strings
// (printable ASCII, nothing escaped) and integers under Record's names,
// each once; false, with rec in any state, when it is anything else.
func parseFlat(b []byte, rec *Record, names *interner) bool {
	*rec = Record{}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return false
	}
	b = b[1 : len(b)-1]
	var seen uint32
	for len(b) > 0 {
		key, rest, ok := plainString(b)
		if !ok || len(rest) == 0 || rest[0] != ':' {
			return false
		}
		b = rest[1:]
		if len(b) == 0 {
			return false
		}
		var str []byte
		var num int64
		isStr := b[0] == '"'
		if isStr {
			// A string past its bound is left to parseRecord to refuse.
			if str, b, ok = plainString(b); len(str)+2 > MaxField {
				return false
			}
		} else {
			num, b, ok = integer(b)
		}
		if !ok {
			return false
		}
		bit, ok := flatField(rec, string(key), isStr, str, num, names)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		if len(b) > 0 {
			if b[0] != ',' || len(b) == 1 {
				return false
			}
			b = b[1:]
		}
	}
	return true
}

// flatField sets the field named key; ok is false for a name or a value
// of a type it does not take. bit tells the field apart from the others.
func flatField(rec *Record, key string, isStr bool, s []byte, n int64, names *interner) (bit uint32, ok bool) {
	str := func(dst *string, bit uint32, intern bool) (uint32, bool) {
		if !isStr {
			return 0, false
		}
		if intern {
			*dst = names.get(s)
		} else {
			*dst = string(s)
		}
		return bit, true
	}
	num := func(dst *int64, bit uint32) (uint32, bool) {
		if isStr {
			return 0, false
		}
		*dst = n
		return bit, true
	}
	switch key {
	case "t":
		return num(&rec.T, 1<<0)
	case "k":
		var k string
		bit, ok = str(&k, 1<<1, true)
		rec.Kind = Kind(k)
		return bit, ok
	case "i":
		return str(&rec.Informer, 1<<2, true)
	case "rv":
		return str(&rec.RV, 1<<3, false)
	case "continue":
		return str(&rec.Continue, 1<<4, false)
	case "type":
		return str(&rec.Type, 1<<5, true)
	case "pbk":
		return str(&rec.ProtoKind, 1<<6, true)
	case "pb":
		if isStr || n > int64(maxObjects) {
			return 0, false
		}
		rec.ProtoCount = int(n)
		return 1 << 7, true
	case "by":
		return str(&rec.By, 1<<8, true)
	case "l":
		return str(&rec.Listener, 1<<9, true)
	case "cb":
		return str(&rec.Callback, 1<<10, true)
	case "key":
		return str(&rec.Key, 1<<11, false)
	case "d":
		return num(&rec.Duration, 1<<12)
	case "dropped":
		if isStr || n < 0 {
			return 0, false
		}
		rec.Dropped = uint64(n)
		return 1 << 13, true
	}
	return 0, false
}

// plainString reads a JSON string at the start of b that needs no
// unescaping and holds printable ASCII only; ok is false otherwise.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return b[1:i], b[i+1:], true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// integer reads a JSON integer at the start of b, as encoding/json
// accepts one (no leading zero, no fraction or exponent), that fits an
// int64; ok is false otherwise.
func integer(b []byte) (n int64, rest []byte, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && b[0] == '-' {
		neg, i = true, 1
	}
	start := i
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		d := int64(b[i] - '0')
		if n > (1<<63-1-d)/10 {
			return 0, nil, false
		}
		n = n*10 + d
	}
	digits := i - start
	if digits == 0 || (digits > 1 && b[start] == '0') {
		return 0, nil, false
	}
	if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
		return 0, nil, false
	}
	if neg {
		n = -n
	}
	return n, b[i:], true
}

// interner hands out one string per distinct name (informers, kinds,
// types, listeners): a recording repeats a few of them millions of times.
type interner struct {
	m map[string]string
}

func (in *interner) get(b []byte) string {
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = map[string]string{}
	}
	// Names are few; a file of ever new ones is not allowed to grow this.
	if len(in.m) < 4096 {
		in.m[s] = s
	}
	return s
}
