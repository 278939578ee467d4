package fleet

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Settings that do not fit together, or name no file, are refused
// before any request.
func TestAuthRefusesSettingsThatDoNotFit(t *testing.T) {
	files := SecretFiles{"--t": {}, "--p": {}, "--c": {}, "--k": {}}
	for name, c := range map[string]struct {
		a    Auth
		want string
	}{
		"token and basic auth": {Auth{BearerToken: "--t", User: "u", Password: "--p"}, "two ways to log in"},
		"user alone":           {Auth{User: "u"}, "a user and a password file"},
		"password alone":       {Auth{Password: "--p"}, "a user and a password file"},
		"certificate alone":    {Auth{Cert: "--c"}, "give both, or neither"},
		"key alone":            {Auth{Key: "--k"}, "give both, or neither"},
		"no such file":         {Auth{CA: "--ca-file"}, "no file is given for --ca-file"},
	} {
		if _, err := newHTTPClient(c.a, files); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
	}
	if _, err := newHTTPClient(Auth{BearerToken: "--t", CA: "--c"}, files); err != nil {
		t.Errorf("a token and a CA: %v", err)
	}
}

// The CA file is read on every request: a CA replaced while informtop
// runs is trusted from the next query on, without a restart; a file
// with no certificate in it is a sentence naming the flag.
func TestAuthReadsTheCAFileAgain(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("ok"))
	}))
	t.Cleanup(srv.Close)

	ca := filepath.Join(t.TempDir(), "ca.pem")
	writePEM := func(der []byte) {
		t.Helper()
		if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writePEM(selfSigned(t)) // another CA first
	files := SecretFiles{"--ca-file": {Flag: "--ca-file", Path: ca, Limit: MaxPEMFileBytes, What: "the CA's certificates (PEM)"}}
	c, err := newHTTPClient(Auth{CA: "--ca-file"}, files)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdleConnections)
	get := func() error {
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	var unknown x509.UnknownAuthorityError
	if err := get(); !errors.As(err, &unknown) {
		t.Fatalf("with another server's CA: %v; want an unknown authority", err)
	}
	writePEM(srv.Certificate().Raw)
	if err := get(); err != nil {
		t.Fatalf("after the CA file was replaced with the right one: %v", err)
	}
	if err := os.WriteFile(ca, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var sfe *secretFileError
	if err := get(); !errors.As(err, &sfe) || !strings.Contains(err.Error(), "--ca-file "+ca+" holds no PEM certificate") {
		t.Errorf("a CA file with no certificate: %v; want a sentence naming --ca-file", err)
	}
}

// A certificate and a key that do not belong together say so, with
// both flags.
func TestAuthSaysACertificateAndKeyDoNotMatch(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(key, []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := SecretFiles{
		"--cert-file": {Flag: "--cert-file", Path: cert, Limit: MaxPEMFileBytes},
		"--key-file":  {Flag: "--key-file", Path: key, Limit: MaxPEMFileBytes},
	}
	c, err := newHTTPClient(Auth{Cert: "--cert-file", Key: "--key-file", InsecureSkipVerify: true}, files)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(srv.URL)
	if want := "--cert-file " + cert + " and --key-file " + key + " are not a certificate and its key"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%v; want %q", err, want)
	}
}

// selfSigned is a CA's certificate other than httptest's.
func selfSigned(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "another CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}
