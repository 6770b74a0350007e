package engine

import "testing"

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
