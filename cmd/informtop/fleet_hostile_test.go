package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An answer over the fleet's budgets ends informtop fleet --once at once
// with exit 2 and a sentence saying which budget: a series of a megabyte,
// or more series than the cap (a Prometheus that ignores the limit).
func TestFleetOnceRefusesAnswersOverBudget(t *testing.T) {
	var many strings.Builder
	many.WriteString(`{"status":"success","data":{"resultType":"vector","result":[`)
	for i := range 200_001 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"metric":{"i":"%d"},"value":[1,"1"]}`, i)
	}
	many.WriteString(`]}}`)
	cases := []struct{ name, body, want string }{
		{"a series of 1 MiB", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"` + strings.Repeat("x", 1<<20) + `"},"value":[1,"1"]}]}}`,
			"is larger than 64 KiB, the most one series may take"},
		{"200,001 series", many.String(), "holds more than 200000 series, the most informtop reads of one query"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, c.body)
			}))
			t.Cleanup(srv.Close)
			code, _, stderr := runCLI(t, "fleet", "--once", "--prometheus", srv.URL, "--timeout", "1m")
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, c.want)
			}
		})
	}
}

// A password in --prometheus or attach's address is refused, exit 2, and
// never repeated.
func TestCLINeverRepeatsAPasswordInAnAddress(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, args := range [][]string{
		{"fleet", "--once", "--prometheus", "http://user:PASSWORD@prometheus:9090"},
		{"fleet", "--once", "--prometheus", "http://user:PASS%zz@prometheus:9090"},
		{"attach", "--once", "http://user:PASSWORD@127.0.0.1:6060"},
		{"attach", "--once", "user:PASSWORD@127.0.0.1:6060"},
	} {
		code, stdout, stderr := runCLI(t, args...)
		if code != 2 || strings.Contains(stdout+stderr, "PASS") || !strings.Contains(stderr, "xxxxx@") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the address without its password", args, code, stderr)
		}
	}
}
