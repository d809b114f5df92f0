// Package nettest holds the network fixtures of tests: listeners that
// accept connections and then say nothing (the peers every network wait
// must survive), and self-signed certificates.
package nettest

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
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Silent listens on 127.0.0.1 and hands each connection it accepts to
// serve, which may answer some of what it reads and then say nothing more
// (nil: ReadForever). The connections are held open until the test ends,
// when the listener and they are closed and serve has returned. accepted
// counts the connections so far.
func Silent(t testing.TB, serve func(net.Conn)) (addr string, accepted func() int) {
	t.Helper()
	if serve == nil {
		serve = ReadForever
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		wg    sync.WaitGroup
	)
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(c)
			}()
		}
	}()
	return ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}

// ReadForever reads what it is sent and answers nothing.
func ReadForever(c net.Conn) { _, _ = io.Copy(io.Discard, c) }

// Cert is a self-signed certificate, its own CA, for names (each an IP
// address or a DNS name), and a pool that trusts it.
func Cert(t testing.TB, names ...string) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	cert, _, _ := cert(t, names)
	leaf, err := x509.ParseCertificate(cert.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return cert, pool
}

// WriteCert writes a certificate as Cert makes it, and its key, as PEM
// files node.crt and node.key in dir.
func WriteCert(t testing.TB, dir string, names ...string) (certFile, keyFile string, c tls.Certificate) {
	t.Helper()
	c, certPEM, keyPEM := cert(t, names)
	certFile, keyFile = filepath.Join(dir, "node.crt"), filepath.Join(dir, "node.key")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, c
}

func cert(t testing.TB, names []string) (c tls.Certificate, certPEM, keyPEM []byte) {
	t.Helper()
	if len(names) == 0 {
		t.Fatal("nettest: a certificate needs a name")
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: names[0]},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true, // so that a client can trust it directly
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}
