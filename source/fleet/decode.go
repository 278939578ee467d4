package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// labels are one series' labels, as Prometheus' JSON has them.
type labels = map[string]string

// series is one element of a vector result. decodeVector reuses one for
// every element: its map and buffers are filled again each time.
type series struct {
	Metric labels             `json:"metric"`
	Value  [2]json.RawMessage `json:"value"`
}

// maxSeriesBytes bounds one series of an answer, and any one other JSON
// value in it: informtop's series have a dozen short labels, a few
// hundred bytes, and the decoder holds a value whole while it reads it.
const maxSeriesBytes = 64 << 10

var (
	errAnswerTooLarge = errors.New("answer over its byte budget")
	errValueTooLarge  = errors.New("value over its byte budget")
	errTooManySeries  = errors.New("answer over its series cap")
)

// budgetReader reads an answer within its budgets: limit bytes in all,
// and no read while the decoder holds more than maxSeriesBytes of one
// value (held: the decoder asks for more only while the value it holds is
// incomplete). It drops blanks outside strings, which JSON ignores but
// the decoder would hold: an answer padded with them costs reading time
// within limit, not memory.
type budgetReader struct {
	r           io.Reader
	read, limit int64
	held        func() int
	inString    bool // within a string, where blanks count
	escaped     bool // after a backslash within a string
}

func (b *budgetReader) Read(p []byte) (int, error) {
	for {
		if b.held() > maxSeriesBytes {
			return 0, errValueTooLarge
		}
		if left := b.limit + 1 - b.read; int64(len(p)) > left {
			p = p[:left]
		}
		n, err := b.r.Read(p)
		b.read += int64(n)
		if b.read > b.limit {
			return 0, errAnswerTooLarge
		}
		if n = b.squeeze(p[:n]); n > 0 || err != nil {
			return n, err
		}
	}
}

// squeeze drops the blanks outside strings from p in place and returns
// how many bytes are left.
func (b *budgetReader) squeeze(p []byte) int {
	w := 0
	for _, c := range p {
		switch {
		case b.escaped:
			b.escaped = false
		case b.inString && c == '\\':
			b.escaped = true
		case c == '"':
			b.inString = !b.inString
		case !b.inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			continue
		}
		p[w] = c
		w++
	}
	return w
}

// answerError is an answer the fleet refuses to read further (over a
// budget); retrying will not mend it.
type answerError struct{ sentence string }

func (e *answerError) Error() string { return e.sentence }

// query runs one instant query at at and calls each for every series of
// the vector it answers, returning how many there were; name is the
// query's short name for sentences. It reads the answer as a stream, one
// series at a time into one reused value, within Options.MaxAnswerBytes,
// maxSeriesBytes a series and Options.MaxSeries series: the v1 API's
// decoding (the whole body, then a model.Sample per series, each decoded
// twice over) allocated about 3 KB per series, which for a fleet of
// 90,000 series came to 280 MB a refresh, and it had no bound at all.
// each must not keep the labels map: it is reused.
func (s *Source) query(ctx context.Context, name, q string, at time.Time, each func(labels, float64)) (int, error) {
	u := s.base.JoinPath("api/v1/query") // after the path prefix, escaped as given
	u.RawQuery = url.Values{
		"query": {q},
		"time":  {strconv.FormatFloat(float64(at.UnixMilli())/1e3, 'f', -1, 64)},
		"limit": {strconv.Itoa(s.opts.MaxSeries)}, // Prometheus 3's; older ones ignore it
	}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, err
	}
	// Closed unread past what was decoded: a hostile rest is not drained.
	defer resp.Body.Close()
	body := &budgetReader{r: resp.Body, limit: s.opts.MaxAnswerBytes}
	dec := json.NewDecoder(body)
	body.held = func() int {
		if b, ok := dec.Buffered().(interface{ Len() int }); ok {
			return b.Len()
		}
		return 0
	}
	var a answer
	n, err := a.decode(dec, s.opts.MaxSeries, each)
	switch {
	case errors.Is(err, errAnswerTooLarge):
		return n, &answerError{fmt.Sprintf("the answer to %s from Prometheus at %s is larger than %s, the most informtop reads of one answer: narrow --selector, and check that %s is Prometheus' query API",
			name, s.url, mib(s.opts.MaxAnswerBytes), s.url)}
	case errors.Is(err, errValueTooLarge) && a.inResult:
		return n, &answerError{fmt.Sprintf("series %d of the answer to %s from Prometheus at %s is larger than %d KiB, the most one series may take: is %s Prometheus' query API?",
			n+1, name, s.url, maxSeriesBytes>>10, s.url)}
	case errors.Is(err, errValueTooLarge):
		return n, &answerError{fmt.Sprintf("the answer to %s from Prometheus at %s holds a JSON value larger than %d KiB, more than any of Prometheus' answers hold: is %s Prometheus' query API?",
			name, s.url, maxSeriesBytes>>10, s.url)}
	case errors.Is(err, errTooManySeries):
		return n, &answerError{fmt.Sprintf("the answer to %s from Prometheus at %s holds more than %d series, the most informtop reads of one query (a Prometheus before 3.0 ignores the limit it is asked for): narrow --selector",
			name, s.url, s.opts.MaxSeries)}
	case ctx.Err() != nil && err != nil:
		return n, ctx.Err()
	case err != nil && resp.StatusCode/100 != 2:
		return n, fmt.Errorf("the query API at %s answered %s", s.url, resp.Status)
	case err != nil:
		return n, fmt.Errorf("the answer to %s is not Prometheus' JSON (%v): is %s Prometheus' query API?", name, err, s.url)
	case a.status == "error":
		return n, fmt.Errorf("the query %s was refused: %s (%s)", q, a.err, a.errType)
	case resp.StatusCode/100 != 2:
		return n, fmt.Errorf("the query API at %s answered %s", s.url, resp.Status)
	case a.resultType != "vector":
		return n, fmt.Errorf("the answer to %s is a %q, not a vector: is %s Prometheus' query API?", name, a.resultType, s.url)
	}
	return n, nil
}

// mib is n bytes in MiB, or KiB below one.
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// answer is what the fleet reads of Prometheus' answer to /api/v1/query
// besides the series.
type answer struct {
	status, errType, err, resultType string
	inResult                         bool // reading the result's series
}

// decode reads the answer's object from dec, key by key, calling each
// for every series of its result; keys it does not know are skipped a
// token at a time.
func (a *answer) decode(dec *json.Decoder, maxSeries int, each func(labels, float64)) (int, error) {
	n := 0
	err := object(dec, func(key string) error {
		var err error
		switch key {
		case "status":
			err = dec.Decode(&a.status)
		case "errorType":
			err = dec.Decode(&a.errType)
		case "error":
			err = dec.Decode(&a.err)
		case "data":
			err = object(dec, func(key string) error {
				switch key {
				case "resultType":
					return dec.Decode(&a.resultType)
				case "result":
					a.inResult = true
					var err error
					n, err = decodeVector(dec, maxSeries, each)
					if err == nil {
						a.inResult = false
					}
					return err
				}
				return skip(dec)
			})
		default:
			err = skip(dec)
		}
		return err
	})
	return n, err
}

// object reads a JSON object from dec, calling field for each key with
// dec before its value, which field must read.
func object(dec *json.Decoder, field func(key string) error) error {
	if t, err := dec.Token(); err != nil {
		return err
	} else if t != json.Delim('{') {
		return fmt.Errorf("%v where an object should begin", t)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := t.(string)
		if err := field(key); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// skip reads past one JSON value a token at a time, so only a token, not
// the value, is held at once.
func skip(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// decodeVector calls each for every element of a vector result read from
// dec, and fails once there are more than maxSeries, before decoding
// the one past it.
func decodeVector(dec *json.Decoder, maxSeries int, each func(labels, float64)) (int, error) {
	if t, err := dec.Token(); err != nil {
		return 0, err
	} else if t != json.Delim('[') {
		return 0, errors.New("a vector result that is not a JSON array")
	}
	var one series
	n := 0
	for dec.More() {
		if n == maxSeries {
			return n, errTooManySeries
		}
		clear(one.Metric)
		one.Value[0], one.Value[1] = one.Value[0][:0], one.Value[1][:0]
		if err := dec.Decode(&one); err != nil {
			return n, fmt.Errorf("series %d of a vector result: %w", n, err)
		}
		v, err := sampleValue(one.Value[1])
		if err != nil {
			return n, fmt.Errorf("series %d of a vector result: %w", n, err)
		}
		each(one.Metric, v)
		n++
	}
	_, err := dec.Token()
	return n, err
}

// sampleValue reads a sample's value: a JSON string holding a float,
// "NaN", "+Inf" or "-Inf".
func sampleValue(raw json.RawMessage) (float64, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, fmt.Errorf("a sample value %s that is not a quoted number", raw)
	}
	return strconv.ParseFloat(string(raw[1:len(raw)-1]), 64)
}
