package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// labels are one series' labels, as Prometheus' JSON has them.
type labels = map[string]string

// envelope is Prometheus' answer to /api/v1/query, the result left raw
// for decodeVector to read one series at a time.
type envelope struct {
	Status    string `json:"status"`
	ErrorType string `json:"errorType"`
	Error     string `json:"error"`
	Data      struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	} `json:"data"`
}

// series is one element of a vector result. decodeVector reuses one for
// every element: its map and buffers are filled again each time.
type series struct {
	Metric labels             `json:"metric"`
	Value  [2]json.RawMessage `json:"value"`
}

// query runs one instant query at at and calls each for every series of
// the vector it answers, returning how many there were. It GETs
// /api/v1/query through the client_golang API client and reads the
// answer itself, one series at a time into one reused value: the v1 API's
// decoding (a model.Sample, each decoded twice over) allocated about
// 3 KB per series, which for a fleet of 90,000 series came to 280 MB a
// refresh. each must not keep the labels map: it is reused.
func (s *Source) query(ctx context.Context, q string, at time.Time, each func(labels, float64)) (int, error) {
	u := s.client.URL("/api/v1/query", nil)
	u.RawQuery = url.Values{
		"query": {q},
		"time":  {strconv.FormatFloat(float64(at.UnixMilli())/1e3, 'f', -1, 64)},
		"limit": {strconv.Itoa(s.opts.MaxSeries)}, // Prometheus 3's; older ones ignore it
	}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	resp, body, err := s.client.Do(ctx, req)
	if err != nil {
		return 0, err
	}
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		if resp.StatusCode/100 != 2 {
			return 0, fmt.Errorf("the query API at %s answered %s", s.url, resp.Status)
		}
		return 0, fmt.Errorf("the answer to %s is not Prometheus' JSON (%v): is %s Prometheus' query API?", q, err, s.url)
	}
	switch {
	case env.Status == "error":
		return 0, fmt.Errorf("the query %s was refused: %s (%s)", q, env.Error, env.ErrorType)
	case resp.StatusCode/100 != 2:
		return 0, fmt.Errorf("the query API at %s answered %s", s.url, resp.Status)
	case env.Data.ResultType != "vector":
		return 0, fmt.Errorf("the answer to %s is a %q, not a vector: is %s Prometheus' query API?", q, env.Data.ResultType, s.url)
	}
	return decodeVector(env.Data.Result, each)
}

// decodeVector calls each for every element of a vector result.
func decodeVector(raw []byte, each func(labels, float64)) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return 0, errors.New("a vector result that is not a JSON array")
	}
	var one series
	n := 0
	for dec.More() {
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
	return n, nil
}

// sampleValue reads a sample's value: a JSON string holding a float,
// "NaN", "+Inf" or "-Inf".
func sampleValue(raw json.RawMessage) (float64, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return 0, fmt.Errorf("a sample value %s that is not a quoted number", raw)
	}
	return strconv.ParseFloat(string(raw[1:len(raw)-1]), 64)
}
