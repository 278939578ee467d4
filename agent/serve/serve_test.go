package serve

import "testing"

func TestListenAddrDefaultsToLoopback(t *testing.T) {
	for in, want := range map[string]string{"": "127.0.0.1:0", ":0": "127.0.0.1:0", ":9090": "127.0.0.1:9090", "localhost:1": "localhost:1", "[::1]:2": "[::1]:2"} {
		if got, err := listenAddr(in); err != nil || got != want {
			t.Errorf("listenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
