package pgwire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"regexp"
	"slices"
	"strings"
	"sync"
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

// TestAuthDelayGrows: consecutive failures from one address wait 100ms,
// 200ms, 400ms ... up to the cap; a success resets the run; another
// address starts at the base; a failure after a quiet spell starts again.
func TestAuthDelayGrows(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newAuthDelay(100*time.Millisecond, time.Second, func() time.Time { return now }, nil)
	var got []time.Duration
	for range 6 {
		_, d := a.failed("10.0.0.1")
		got = append(got, d)
	}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
	if !slices.Equal(got, want) {
		t.Fatalf("delays %v, want %v", got, want)
	}
	if n, d := a.failed("10.0.0.2"); n != 1 || d != 100*time.Millisecond {
		t.Fatalf("another address's first failure: %d in a row, %v", n, d)
	}
	a.succeeded("10.0.0.1")
	if n, d := a.failed("10.0.0.1"); n != 1 || d != 100*time.Millisecond {
		t.Fatalf("after a success: %d in a row, %v", n, d)
	}
	a.failed("10.0.0.1")
	now = now.Add(authForget + time.Second)
	if n, d := a.failed("10.0.0.1"); n != 1 || d != 100*time.Millisecond {
		t.Fatalf("after a quiet spell: %d in a row, %v", n, d)
	}
}

// TestAuthDelayTableIsBounded: failures from more addresses than the
// table holds forget the address whose last failure is oldest.
func TestAuthDelayTableIsBounded(t *testing.T) {
	now := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newAuthDelay(100*time.Millisecond, time.Second, func() time.Time { return now }, nil)
	a.failed("first")
	a.failed("first")
	for i := range authAddrs + 100 {
		now = now.Add(time.Millisecond)
		a.failed(fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255))
	}
	if len(a.addrs) != authAddrs {
		t.Fatalf("%d addresses remembered, want at most %d", len(a.addrs), authAddrs)
	}
	if n, _ := a.failed("first"); n != 1 {
		t.Fatalf("the oldest address was not forgotten: %d in a row", n)
	}
}

// TestAuthDelayOverTheWire: the server waits before answering a wrong
// password (the recorded sleeps grow), a right password resets the run,
// and a client from another address (127.0.0.2) is not slowed by the
// first one's failures. Each failure is logged.
// lockedBuffer is a log destination that sessions write concurrently.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestAuthDelayOverTheWire(t *testing.T) {
	var mu sync.Mutex
	var slept []time.Duration
	var logged lockedBuffer
	cfg := Config{Logger: slog.New(slog.NewTextHandler(&logged, nil)), Users: map[string]string{"alice": "s3cret"}, authSleep: func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		slept = append(slept, d)
		return nil
	}}
	addr, _ := startServerWith(t, cfg)
	host, port, _ := net.SplitHostPort(addr)
	login := func(from, password string) error {
		t.Helper()
		pc, err := pgx.ParseConfig("host=" + host + " port=" + port + " sslmode=disable user=alice password=" + password)
		if err != nil {
			t.Fatal(err)
		}
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
		pc.DialFunc = d.DialContext
		conn, err := pgx.ConnectConfig(context.Background(), pc)
		if err == nil {
			_ = conn.Close(context.Background())
		}
		return err
	}
	sleeps := func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		out := slept
		slept = nil
		return out
	}
	for range 3 {
		if code, _ := pgCode(login("127.0.0.1", "wrong")); code != "28P01" {
			t.Fatalf("wrong password: SQLSTATE %q, want 28P01", code)
		}
	}
	if got, want := sleeps(), []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond}; !slices.Equal(got, want) {
		t.Fatalf("delays of three failures %v, want %v", got, want)
	}
	if code, _ := pgCode(login("127.0.0.2", "wrong")); code != "28P01" {
		t.Fatalf("wrong password from 127.0.0.2: SQLSTATE %q", code)
	}
	if err := login("127.0.0.2", "s3cret"); err != nil {
		t.Fatalf("right password from 127.0.0.2: %v", err)
	}
	if code, _ := pgCode(login("127.0.0.1", "wrong")); code != "28P01" {
		t.Fatalf("fourth wrong password: SQLSTATE %q", code)
	}
	if got, want := sleeps(), []time.Duration{100 * time.Millisecond, 800 * time.Millisecond}; !slices.Equal(got, want) {
		t.Fatalf("delays of 127.0.0.2's first and 127.0.0.1's fourth failure %v, want %v (a success waits for nothing)", got, want)
	}
	if err := login("127.0.0.1", "s3cret"); err != nil {
		t.Fatalf("right password: %v", err)
	}
	if code, _ := pgCode(login("127.0.0.1", "wrong")); code != "28P01" {
		t.Fatalf("wrong password after a success: SQLSTATE %q", code)
	}
	if got, want := sleeps(), []time.Duration{100 * time.Millisecond}; !slices.Equal(got, want) {
		t.Fatalf("delay after a success %v, want %v", got, want)
	}
	want := regexp.MustCompile(`(?m)^time=\S+ level=WARN msg="pgwire: password authentication failed" remote_addr=127\.0\.0\.1:\d+ user=alice database=alice failures_in_a_row=4 delay=800ms$`)
	if !want.MatchString(logged.String()) {
		t.Fatalf("log lacks %s:\n%s", want, logged.String())
	}
}
