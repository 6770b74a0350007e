package pgwire

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nodeScript is the node-postgres client the test runs: connect, a
// parameterized query, an error (the connection survives it) and a named
// prepared statement run twice.
const nodeScript = `
const { Client } = require('pg');
(async () => {
  const c = new Client({ host: process.env.PGHOST, port: +process.env.PGPORT, user: 'node', database: 'streamsql' });
  await c.connect();
  await c.query("CREATE SOURCE ns (k BIGINT, v VARCHAR, f DOUBLE) WITH (connector = 'memory')");
  await c.query("CREATE MATERIALIZED VIEW nv AS SELECT k, v, f FROM ns");
  await c.query('INSERT INTO ns VALUES ($1, $2, $3), ($4, $5, $6)', [1, "it's", 1.5, 2, 'two', -2]);
  await c.query('FLUSH');
  const r = await c.query('SELECT k, v, f FROM nv WHERE k = $1', [1]);
  console.log('row', JSON.stringify(r.rows));
  try {
    await c.query('SELECT * FROM missing_view');
  } catch (e) {
    console.log('error', e.code, e.message);
  }
  for (const k of [1, 2]) {
    const p = await c.query({ name: 'byk', text: 'SELECT v FROM nv WHERE k = $1', values: [k] });
    console.log('prepared', p.rows[0].v);
  }
  const n = await c.query('SELECT count(*) AS n FROM nv');
  console.log('count', n.rows[0].n);
  await c.end();
})().catch((e) => { console.error('FAILED', e); process.exit(1); });
`

// TestNodePostgres installs node-postgres with npm (the registry must be
// reachable; the package cache lives under the user's cache directory)
// and runs nodeScript against the server.
func TestNodePostgres(t *testing.T) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("npm is needed for this test: %v", err)
	}
	dir := t.TempDir()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir,
		"--cache", filepath.Join(cache, "streamsql-npm"), "pg@8")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("npm install pg: %v\n%s", err, out)
	}
	script := filepath.Join(dir, "client.js")
	if err := os.WriteFile(script, []byte(nodeScript), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t)
	host, port, _ := net.SplitHostPort(addr)
	node := exec.CommandContext(ctx, "node", script)
	node.Dir = dir
	node.Env = append(os.Environ(), "PGHOST="+host, "PGPORT="+port, "NODE_PATH="+filepath.Join(dir, "node_modules"))
	out, err := node.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	for _, want := range []string{
		`row [{"k":"1","v":"it's","f":1.5}]`,
		`error 42P01 relation "missing_view" does not exist`,
		"prepared it's\nprepared two",
		"count 2",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("node output lacks %q:\n%s", want, out)
		}
	}
}
