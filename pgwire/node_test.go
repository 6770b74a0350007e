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

// TestNodePostgres runs nodeScript with node-postgres.
func TestNodePostgres(t *testing.T) {
	out := runNode(t, nodeScript, "pg@8")
	for _, want := range []string{
		`row [{"k":"1","v":"it's","f":1.5}]`,
		`error 42P01 relation "missing_view" does not exist`,
		"prepared it's\nprepared two",
		"count 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("node output lacks %q:\n%s", want, out)
		}
	}
}

// runNode installs packages with npm (the registry must be reachable; the
// package cache lives under the user's cache directory), starts a server
// and runs script against it with node; it returns the script's output.
func runNode(t *testing.T, script string, packages ...string) string {
	t.Helper()
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
	args := append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir,
		"--cache", filepath.Join(cache, "streamsql-npm")}, packages...)
	if out, err := exec.CommandContext(ctx, npm, args...).CombinedOutput(); err != nil {
		t.Fatalf("npm install %v: %v\n%s", packages, err, out)
	}
	file := filepath.Join(dir, "client.js")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	addr, _ := startServer(t)
	host, port, _ := net.SplitHostPort(addr)
	node := exec.CommandContext(ctx, "node", file)
	node.Dir = dir
	node.Env = append(os.Environ(), "PGHOST="+host, "PGPORT="+port, "NODE_PATH="+filepath.Join(dir, "node_modules"))
	out, err := node.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return string(out)
}

// nodeCursorScript reads a SUBSCRIBE through pg-cursor one row at a
// time: read(1) sends an Execute with a row limit of 1, which must come
// back with a row and PortalSuspended (the snapshot's row, then each
// change as it happens), and closing the cursor leaves the connection
// usable.
const nodeCursorScript = `
const { Client } = require('pg');
const Cursor = require('pg-cursor');
(async () => {
  const opts = { host: process.env.PGHOST, port: +process.env.PGPORT, user: 'node', database: 'streamsql' };
  const c = new Client(opts);
  const w = new Client(opts);
  await c.connect();
  await w.connect();
  await w.query("CREATE SOURCE cs (k BIGINT, v VARCHAR) WITH (connector = 'memory')");
  await w.query('CREATE MATERIALIZED VIEW cv AS SELECT k, v FROM cs');
  await w.query("INSERT INTO cs VALUES (1, 'a')");
  await w.query('FLUSH');
  const cur = c.query(new Cursor('SUBSCRIBE TO cv'));
  console.log('snapshot', JSON.stringify(await cur.read(1)));
  await w.query("INSERT INTO cs VALUES (2, 'b'), (3, 'c')");
  await w.query('FLUSH');
  const changes = [];
  while (changes.length < 2) {
    const rows = await cur.read(1);
    if (rows.length !== 1) throw new Error('read(1) returned ' + JSON.stringify(rows));
    changes.push(rows[0]);
  }
  changes.sort((a, b) => a.k - b.k);
  console.log('changes', JSON.stringify(changes));
  await cur.close();
  const n = await c.query('SELECT count(*) AS n FROM cv');
  console.log('after close', n.rows[0].n);
  await c.end();
  await w.end();
})().catch((e) => { console.error('FAILED', e); process.exit(1); });
`

// TestNodeCursorSubscribe runs nodeCursorScript's cursor reads of a SUBSCRIBE.
func TestNodeCursorSubscribe(t *testing.T) {
	out := runNode(t, nodeCursorScript, "pg@8", "pg-cursor@2")
	for _, want := range []string{
		`snapshot [{"k":"1","v":"a","op":"insert"}]`,
		`changes [{"k":"2","v":"b","op":"insert"},{"k":"3","v":"c","op":"insert"}]`,
		"after close 3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("node output lacks %q:\n%s", want, out)
		}
	}
}
