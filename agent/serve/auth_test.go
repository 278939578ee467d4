package serve

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/api"
)

// testToken is as long as a generated token usually is (32 random bytes
// in hex), longer than the 32 bytes a string converts into on the stack.
const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// The check that runs before anything else allocates nothing, whatever
// is sent: a generated token is longer than the 32 bytes a string
// converts into on the stack, and an attacker's may be longer still.
func TestTokenCheckAllocatesNothing(t *testing.T) {
	metricsTok := strings.ToUpper(testToken)
	opts, err := Options{Token: testToken, MetricsToken: metricsTok}.WithToken()
	if err != nil {
		t.Fatal(err)
	}
	g := newGuard(opts)
	for _, c := range []struct {
		name, header string
		want         scope
	}{
		{"none", "", scopeNone},
		{"the attach token", "Bearer " + testToken, scopeAll},
		{"the metrics token", "bearer " + metricsTok, scopeMetrics},
		{"a wrong one", "Bearer " + testToken[1:], scopeNone},
		{"a long one", "Bearer " + strings.Repeat("x", 900), scopeNone},
		{"basic", "Basic " + testToken, scopeNone},
	} {
		r := httptest.NewRequest(http.MethodGet, api.PathFrame, nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if got := g.scope(r); got != c.want {
			t.Errorf("%s: scope %d, want %d", c.name, got, c.want)
		}
		if n := testing.AllocsPerRun(100, func() { g.scope(r) }); n != 0 {
			t.Errorf("%s: the check allocates %v times; want 0", c.name, n)
		}
	}
}
