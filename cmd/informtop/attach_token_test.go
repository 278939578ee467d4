package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"

	"github.com/informtop/informtop/agent/api"
)

func TestAttachTokenPrecedence(t *testing.T) {
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == envAttachToken {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct {
		flag, file, env, want string
	}{
		{"from-flag", file, "from-env", "from-flag"},
		{"", file, "from-env", "from-file"},
		{"", "", "from-env", "from-env"},
		{"", "", "", ""},
	} {
		got, err := attachToken(c.flag, c.file, env(c.env))
		if err != nil || got != c.want {
			t.Errorf("--token %q --token-file %q $%s %q: %q, %v; want %q", c.flag, c.file, envAttachToken, c.env, got, err, c.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing")
	for _, c := range []struct {
		flag, file, env, want string
	}{
		{"", missing, "from-env", "--token-file: the token file " + missing + " does not exist"},
		{"", "", "from-env\n", "$" + envAttachToken + ": the token holds a control character"},
		{"from-flag ", "", "", "--token: the token begins or ends with white space"},
	} {
		if _, err := attachToken(c.flag, c.file, env(c.env)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--token %q --token-file %q $%s %q: %v, want %q", c.flag, c.file, envAttachToken, c.env, err, c.want)
		}
	}
}

// The token reaches the agent from each source: a fake agent answers a
// synced frame only to the token it wants, so attach --once exits 0 only
// when that token was sent.
func TestAttachSendsTheTokenFromEachSource(t *testing.T) {
	const want = "s3cret-token"
	agent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+want {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set(api.VersionHeader, api.Version)
		_ = json.NewEncoder(w).Encode(api.Frame{Version: api.Version, Source: "fake", Snapshots: []source.Informer{{Name: "pods", Synced: true}}})
	}))
	t.Cleanup(agent.Close)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(want+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		env  string
	}{
		{"flag", []string{"--token", want}, "wrong"},
		{"file", []string{"--token-file", file}, "wrong"},
		{"environment", nil, want},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(envAttachToken, c.env)
			args := append([]string{"attach", agent.URL, "--once", "--json", "--timeout", "1m"}, c.args...)
			if code, _, stderr := runCLI(t, args...); code != 0 {
				t.Errorf("exit %d: %s", code, stderr)
			}
		})
	}
	t.Run("unreadable file", func(t *testing.T) {
		code, _, stderr := runCLI(t, "attach", agent.URL, "--once", "--token-file", t.TempDir())
		if code != 2 || !strings.Contains(stderr, "--token-file: the token file") || !strings.Contains(stderr, "is a directory") {
			t.Errorf("exit %d: %s", code, stderr)
		}
	})
}
