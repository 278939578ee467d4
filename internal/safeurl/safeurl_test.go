package safeurl

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestRedactKeepsNoPassword(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:PASSWORD@host:9090/p":  "http://user:xxxxx@host:9090/p",
		"http://user:PASS%zz@host:9090/p":   "http://xxxxx@host:9090/p", // does not parse
		"user:PASSWORD@host:6060":           "xxxxx@host:6060",
		"http://host:9090/a@b":              "http://host:9090/a@b",
		"http://prometheus:9090":            "http://prometheus:9090",
		"https://u:p%40ss@h:1/x?y=%zz#frag": "https://u:xxxxx@h:1/x?y=%zz#frag",
	} {
		got := Redact(raw)
		if got != want || strings.Contains(got, "PASS") {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestSameOriginFollowsOnlyTheFirstOrigin(t *testing.T) {
	req := func(raw string) *http.Request {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		return &http.Request{URL: u}
	}
	first := []*http.Request{req("http://Prom:80/api/v1/query")}
	for to, follow := range map[string]bool{
		"http://prom/other":                  true,
		"http://prom:80/other":               true,
		"http://prom:9091/api/v1/query":      false,
		"https://prom/api/v1/query":          false,
		"http://evil/api/v1/query?token=x":   false,
		"http://user:pw@prom:9091/api?q=abc": false,
	} {
		err := SameOrigin(req(to), first)
		var re *RedirectError
		switch {
		case follow && err != nil:
			t.Errorf("%s: %v, want it followed", to, err)
		case !follow && !errors.As(err, &re):
			t.Errorf("%s: %v, want a RedirectError", to, err)
		case !follow && (strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "?")):
			t.Errorf("%s: %q quotes the user or query", to, err)
		}
	}
}
