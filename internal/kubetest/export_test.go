package kubetest

import (
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// PIDs returns the PIDs of every process c started, stopped ones included,
// so the tests can check that none is left behind.
func PIDs(c *Cluster) []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	pids := make([]int, 0, len(c.all))
	for _, p := range c.all {
		pids = append(pids, p.PID())
	}
	return pids
}

// EtcdCompacted reports whether etcd has compacted away revision rev:
// a read at it answers "required revision has been compacted".
func EtcdCompacted(t testing.TB, c *Cluster, rev int64) bool {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	body := `{"key":"` + base64.StdEncoding.EncodeToString([]byte(revisionKey)) + `","revision":"` + strconv.FormatInt(rev, 10) + `"}`
	r, err := client.Post(c.etcd+"/v3/kv/range", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	data, _ := io.ReadAll(r.Body)
	return strings.Contains(string(data), "required revision has been compacted")
}
