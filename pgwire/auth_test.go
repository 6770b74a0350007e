package pgwire

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
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestSCRAM: with users configured, pgx and psql authenticate with
// SCRAM-SHA-256; a wrong password or an unknown user is refused with
// 28P01.
func TestSCRAM(t *testing.T) {
	addr, _ := startServerWith(t, Config{Users: map[string]string{"alice": "s3cret"}})
	host, port, _ := net.SplitHostPort(addr)
	ctx := context.Background()
	for _, c := range []struct {
		user, password, code string
	}{
		{"alice", "s3cret", ""},
		{"alice", "wrong", "28P01"},
		{"bob", "s3cret", "28P01"},
	} {
		conn, err := pgx.Connect(ctx, "host="+host+" port="+port+" sslmode=disable user="+c.user+" password="+c.password)
		if c.code == "" {
			if err != nil {
				t.Fatalf("%s: %v", c.user, err)
			}
			mustExec(t, conn, "SHOW TimeZone")
			_ = conn.Close(ctx)
			continue
		}
		if code, _ := pgCode(err); code != c.code {
			t.Errorf("%s/%s: %v, want SQLSTATE %s", c.user, c.password, err, c.code)
		}
	}
	cmd := wirePsqlCmd(ctx, addr, "-c", "SHOW TimeZone")
	cmd.Args[len(cmd.Args)-5] = "alice" // after -U
	cmd.Env = append(cmd.Env, "PGPASSWORD=s3cret")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "UTC") {
		t.Fatalf("psql with SCRAM: %v\n%s", err, out)
	}
}

// TestTLS: a client asking for TLS gets it (sslmode=require), a client
// not asking still connects in the clear.
func TestTLS(t *testing.T) {
	addr, _ := startServerWith(t, Config{TLS: selfSigned(t)})
	host, port, _ := net.SplitHostPort(addr)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "host="+host+" port="+port+" user=tls sslmode=require")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, ok := conn.PgConn().Conn().(*tls.Conn); !ok {
		t.Fatalf("connection is %T, not TLS", conn.PgConn().Conn())
	}
	mustExec(t, conn, "SHOW TimeZone")
	plain := connect(t, addr, pgx.QueryExecModeExec)
	mustExec(t, plain, "SHOW TimeZone")
}

func selfSigned(t *testing.T) *tls.Config {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}
