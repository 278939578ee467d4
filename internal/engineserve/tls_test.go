package engineserve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/api"
	"github.com/informtop/informtop/agent/serve"
	"github.com/informtop/informtop/engine"
)

// testCA issues certificates for the TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "informtop test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue makes a leaf certificate for a server (on 127.0.0.1) or a client.
func (ca *testCA) issue(t *testing.T, serial int64, usage x509.ExtKeyUsage) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "informtop test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// An agent on an address other machines reach may go without a token when
// TLS verifies client certificates: a client with a certificate of the CA
// is served, one without is turned away in the handshake. TLS that only
// asks for a certificate, without verifying it, is not enough.
func TestServeOnNonLoopbackWithVerifiedClientCertificates(t *testing.T) {
	inf := engine.NewSharedIndexInformerWithOptions(newTestSource(t), nil, engine.Options{Name: "pods"})
	ca := newTestCA(t)
	serverCert := ca.issue(t, 2, x509.ExtKeyUsageServerAuth)
	clientCert := ca.issue(t, 3, x509.ExtKeyUsageClientAuth)

	lax := &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12}
	if err := Serve(context.Background(), "0.0.0.0:0", serve.Options{TLSConfig: lax}, inf); err == nil || !strings.Contains(err.Error(), "without a token") {
		t.Fatalf("Serve on 0.0.0.0 with client certificates requested but not verified = %v, want a refusal", err)
	}

	strict := &tls.Config{Certificates: []tls.Certificate{serverCert}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: ca.pool, MinVersion: tls.VersionTLS12}
	addr, stop := serveUntilCancelled(t, "0.0.0.0:0", serve.Options{TLSConfig: strict}, inf)
	_, port, _ := net.SplitHostPort(addr)
	url := "https://127.0.0.1:" + port + api.PathFrame
	client := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: ca.pool, Certificates: certs, MinVersion: tls.VersionTLS12}}}
	}
	resp, err := client(clientCert).Get(url)
	if err != nil {
		t.Fatalf("with a client certificate of the CA: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with a client certificate of the CA: %s", resp.Status)
	}
	if resp, err := client().Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("without a client certificate: %s, want the TLS handshake refused", resp.Status)
	}
	other := newTestCA(t).issue(t, 4, x509.ExtKeyUsageClientAuth)
	if resp, err := client(other).Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("with a certificate of another CA: %s, want the TLS handshake refused", resp.Status)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
