// Package servetest reads an agent endpoint in tests: GET a path, decode
// a frame, parse and look up /metrics samples, read a refusal's sentence.
package servetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/informtop/informtop/agent/api"
)

// Do sends method path to srv, with a bearer token unless it is "", and
// reads the whole answer.
func Do(t testing.TB, srv *httptest.Server, method, path, token string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

// Get is Do returning the status and body; it checks the version header:
// there on every answer but the refusals (401, 405), which tell nothing
// of the agent.
func Get(t testing.TB, srv *httptest.Server, method, path, token string) (int, []byte) {
	t.Helper()
	resp, body := Do(t, srv, method, path, token)
	want := api.Version
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusMethodNotAllowed {
		want = ""
	}
	if v := resp.Header.Get(api.VersionHeader); v != want {
		t.Errorf("%s %s: %d with %s = %q, want %q", method, path, resp.StatusCode, api.VersionHeader, v, want)
	}
	return resp.StatusCode, body
}

// GetJSON GETs path without a token, wants 200 and decodes the body into
// v; it returns the body.
func GetJSON(t testing.TB, srv *httptest.Server, path string, v any) []byte {
	t.Helper()
	status, body := Get(t, srv, http.MethodGet, path, "")
	if status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v in %s", path, err, body)
	}
	return body
}

// ErrorSentence decodes an api.Error body.
func ErrorSentence(t testing.TB, body []byte) string {
	t.Helper()
	var e api.Error
	if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
		t.Fatalf("body is not an api.Error: %s (%v)", body, err)
	}
	return e.Error
}

// Scrape parses a /metrics answer in the text format.
func Scrape(t testing.TB, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parsing /metrics: %v\n%s", err, body)
	}
	return mfs
}

// Value is the sample of family name whose labels include want (a
// gauge's or counter's value, a histogram's count); it fails the test
// when there is none.
func Value(t testing.TB, mfs map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	mf, ok := mfs[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
next:
	for _, m := range mf.GetMetric() {
		for _, lp := range m.GetLabel() {
			if v, asked := want[lp.GetName()]; asked && v != lp.GetValue() {
				continue next
			}
		}
		for k := range want {
			if !hasLabel(m, k) {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue()
		case m.Counter != nil:
			return m.GetCounter().GetValue()
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount())
		case m.Untyped != nil:
			return m.GetUntyped().GetValue()
		}
	}
	t.Fatalf("no sample of %s with labels %v", name, want)
	return 0
}

func hasLabel(m *dto.Metric, name string) bool {
	for _, lp := range m.GetLabel() {
		if lp.GetName() == name {
			return true
		}
	}
	return false
}
