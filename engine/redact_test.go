package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/catalog"
)

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`dsn = 'postgres://app:s3cret@127.0.0.1:5432/app'`, `dsn = 'postgres://app:***@127.0.0.1:5432/app'`},
		{`dsn = 'postgres://app@127.0.0.1/app'`, `dsn = 'postgres://app@127.0.0.1/app'`},
		{`dsn = 'host=db user=app password=s3cret dbname=x'`, `dsn = 'host=db user=app password=*** dbname=x'`},
		{`host=db password='a b' user=x`, `host=db password='***' user=x`},
		{`WITH (connector = 'kafka', sasl.password = 'pw', topic = 't')`, `WITH (connector = 'kafka', sasl.password = '***', topic = 't')`},
		{`postgres://u:p%40ss@h/db?sslmode=disable`, `postgres://u:***@h/db?sslmode=disable`},
		{`SELECT 1`, `SELECT 1`},
	} {
		if got := redact(c.in); got != c.want {
			t.Errorf("redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestObjectsHidePasswords(t *testing.T) {
	e, err := Open(Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.Exec(context.Background(), `CREATE SOURCE s (k BIGINT) WITH (partitions = 1, note = 'postgres://u:hunter2@h/db')`); err == nil {
		t.Fatal("an unknown option was accepted")
	}
	if err := e.cat.Add(&catalog.Object{Kind: catalog.Sink, Name: "k", SQL: `CREATE SINK k FROM v WITH (dsn = 'postgres://u:hunter2@h/db')`, Options: map[string]string{"dsn": "postgres://u:hunter2@h/db"}}); err != nil {
		t.Fatal(err)
	}
	for _, o := range e.Objects() {
		if strings.Contains(o.SQL, "hunter2") || strings.Contains(o.Options["dsn"], "hunter2") {
			t.Fatalf("Objects shows the password: %q %v", o.SQL, o.Options)
		}
	}
}
