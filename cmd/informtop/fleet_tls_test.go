package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// --ca-file, --cert-file, --key-file and basic auth reach Prometheus as
// given, though every file is read through the fleet's budgets.
func TestFleetOnceWithTLSAndBasicAuthFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, blockType string, der []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: blockType, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "informtop-test-client"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	clientCert, _ := x509.ParseCertificate(der)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile := write("client.pem", "CERTIFICATE", der), write("client-key.pem", "PRIVATE KEY", keyDER)
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var seen []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		mu.Lock()
		seen = append(seen, user+":"+pass+" "+r.TLS.PeerCertificates[0].Subject.CommonName)
		mu.Unlock()
		q := r.FormValue("query")
		series := ""
		switch {
		case strings.HasPrefix(q, "up"):
			series = `{"metric":{"job":"c","instance":"h:1"},"value":[1,"1"]}`
		case strings.HasPrefix(q, "informtop_informer_synced"):
			series = `{"metric":{"__name__":"informtop_informer_synced","job":"c","instance":"h:1","name":"pods","group":"","version":"v1","resource":"pods"},"value":[1,"1"]}`
		}
		_, _ = io.WriteString(w, `{"status":"success","data":{"resultType":"vector","result":[`+series+`]}}`)
	}))
	pool := x509.NewCertPool()
	pool.AddCert(clientCert)
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := write("ca.pem", "CERTIFICATE", srv.Certificate().Raw)

	code, stdout, stderr := runCLI(t, "fleet", "--once", "--json", "--prometheus", srv.URL, "--timeout", "1m", "--ca-file", ca,
		"--cert-file", certFile, "--key-file", keyFile, "--basic-auth-user", "u", "--basic-auth-password-file", pw)
	if code != 0 || !strings.Contains(stdout, `"instance": "h:1"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want 0 and the process", code, stdout, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 || seen[0] != "u:s3cret informtop-test-client" {
		t.Errorf("Prometheus saw %q; want basic auth u:s3cret over the client certificate", seen)
	}
}
