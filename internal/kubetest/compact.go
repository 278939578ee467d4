package kubetest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"
)

// revisionKey is the etcd key CompactEtcd writes: outside the API
// server's prefix (/registry), so no resource sees it.
const revisionKey = "/informtop-kubetest/revision"

// CompactEtcd moves etcd's revision on by two writes of a key no API
// server reads, as other clients' writes would, and compacts etcd's
// history up to the second, as kube-apiserver's compactor does every five
// minutes (--etcd-compaction-interval). It returns that revision.
//
// From then on a watch from a resourceVersion handed out before the call
// gets 410 Gone wherever etcd serves it (--watch-cache=false), and from
// any API server whose watch cache starts afterwards (StartAPIServer): the
// cache's history begins at its first list, after the compaction. A
// running API server's watch cache keeps the history it holds in memory,
// so it may still serve such a watch.
//
// It talks to etcd's JSON gateway, so the harness needs no etcd client.
func (c *Cluster) CompactEtcd(t testing.TB) int64 {
	t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	key := base64.StdEncoding.EncodeToString([]byte(revisionKey))
	var rev int64
	for range 2 {
		var put struct {
			Header struct {
				Revision string `json:"revision"`
			} `json:"header"`
		}
		c.etcdCall(t, client, "/v3/kv/put", map[string]any{"key": key, "value": key}, &put)
		r, err := strconv.ParseInt(put.Header.Revision, 10, 64)
		if err != nil {
			t.Fatalf("kubetest: etcd answered a write with revision %q: %v", put.Header.Revision, err)
		}
		rev = r
	}
	// physical: etcd answers once the old revisions are gone, so a watch
	// from one of them fails from now on, not at some later moment.
	c.etcdCall(t, client, "/v3/kv/compaction", map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}, nil)
	return rev
}

// etcdCall posts req as JSON to etcd's gateway at path and decodes its
// answer into resp (nil: ignored); any failure fails t.
func (c *Cluster) etcdCall(t testing.TB, client *http.Client, path string, req, resp any) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	r, err := client.Post(c.etcd+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("kubetest: could not reach etcd's gateway at %s: %v", c.etcd+path, err)
	}
	defer r.Body.Close()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatalf("kubetest: reading etcd's answer to %s: %v", path, err)
	}
	if r.StatusCode != http.StatusOK {
		t.Fatalf("kubetest: etcd answered %s with %s: %s", path, r.Status, data)
	}
	if resp != nil {
		if err := json.Unmarshal(data, resp); err != nil {
			t.Fatalf("kubetest: etcd's answer to %s is not what the gateway writes (%v): %s", path, err, data)
		}
	}
}
