package postgres

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// cutProxy forwards TCP to Postgres; once armed, it lets the next COMMIT
// through to the server and then cuts the client off before the answer
// arrives: the transaction commits but the client cannot know.
type cutProxy struct {
	ln     net.Listener
	target string
	armed  atomic.Bool
	fired  atomic.Bool
}

// commitMsg is the simple-protocol Query message pgx sends for COMMIT.
var commitMsg = []byte("Q\x00\x00\x00\x0bcommit\x00")

func startCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	t.Cleanup(func() { ln.Close() })
	go p.serve()
	return p
}

func (p *cutProxy) serve() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		var cut atomic.Bool
		go func() { // server → client, dropped once cut
			buf := make([]byte, 32<<10)
			for {
				n, err := server.Read(buf)
				if n > 0 && !cut.Load() {
					_, _ = client.Write(buf[:n])
				}
				if err != nil {
					client.Close()
					return
				}
			}
		}()
		go func() { // client → server, watching for COMMIT
			defer server.Close()
			buf := make([]byte, 32<<10)
			for {
				n, err := client.Read(buf)
				if n > 0 {
					// Cut before the COMMIT goes on: its acknowledgement
					// must never reach the client (cutting after the
					// write raced the reply on a fast machine).
					commit := p.armed.Load() && bytes.Contains(buf[:n], commitMsg)
					if commit {
						cut.Store(true)
					}
					_, _ = server.Write(buf[:n])
					if commit {
						p.armed.Store(false)
						p.fired.Store(true)
						client.Close()
						time.Sleep(500 * time.Millisecond) // let the server finish the COMMIT
						_, _ = io.Copy(io.Discard, server)
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
	}
}

// proxiedDB makes a fresh database and returns its DSN (direct), a DSN
// reaching it through a cutProxy (dsn), and the proxy.
func proxiedDB(t *testing.T) (direct, dsn string, proxy *cutProxy) {
	t.Helper()
	direct = srv.DSNFor(srv.NewDB(t))
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	proxy = startCutProxy(t, u.Host)
	u.Host = proxy.ln.Addr().String()
	return direct, u.String(), proxy
}

// commitLosingAck pre-commits and commits checkpoint id with the proxy
// armed: the connection that sends COMMIT is cut once Postgres has it, and
// Commit must still succeed (by its retry).
func commitLosingAck(t *testing.T, s connectors.Sink, proxy *cutProxy, id uint64) {
	t.Helper()
	if _, err := s.PreCommit(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	proxy.armed.Store(true)
	if err := s.Commit(context.Background(), id); err != nil {
		t.Fatalf("commit: %v", err)
	}
	if !proxy.fired.Load() {
		t.Fatal("the proxy never saw a COMMIT")
	}
}

// TestCommitRetryAfterLostAcknowledgement: the connection dies after
// Postgres committed checkpoint 2 but before the sink heard so. The retry
// finds the progress row at 2 and does not apply the checkpoint again
// (with a keyless view a second apply would duplicate its rows).
func TestCommitRetryAfterLostAcknowledgement(t *testing.T) {
	direct, dsn, proxy := proxiedDB(t)
	schema := types.Schema{{Name: "bidder", Type: types.Int}, {Name: "price", Type: types.Float}}
	var logs logBuffer
	s := openSink(t, schema, nil, logs.logger(), map[string]string{"dsn": dsn, "table": "bids", "create_table": "true", "retry_max_backoff": "200ms"})
	mustWrite(t, s, up(types.IntValue(1), types.FloatValue(1)))
	mustCommit(t, s, 1)
	mustWrite(t, s, up(types.IntValue(2), types.FloatValue(2)), up(types.IntValue(3), types.FloatValue(3)))
	commitLosingAck(t, s, proxy, 2)
	same(t, "after the lost acknowledgement", psql(t, direct, "SELECT bidder, price FROM bids"), "1 1", "2 2", "3 3")
	same(t, "progress", psql(t, direct, "SELECT checkpoint FROM streamsql_sink_progress"), "2")
	if !strings.Contains(logs.String(), "Postgres unavailable, retrying") {
		t.Errorf("no retry logged:\n%s", logs.String())
	}
}

// TestLostAcknowledgementOnOneOfTwoConnections: with write_connections =
// 2, one connection's COMMIT goes through unheard; its retry finds its
// own progress row at the checkpoint while the other connection commits
// normally, and every row lands once.
func TestLostAcknowledgementOnOneOfTwoConnections(t *testing.T) {
	direct, dsn, proxy := proxiedDB(t)
	schema := types.Schema{{Name: "id", Type: types.Int}, {Name: "price", Type: types.Float}}
	var logs logBuffer
	s := openSink(t, schema, []int{0}, logs.logger(), map[string]string{"dsn": dsn, "table": "t", "create_table": "true",
		"retry_max_backoff": "200ms", "write_connections": "2"})
	var want1, want2 []string
	for k := range int64(20) {
		mustWrite(t, s, up(types.IntValue(k), types.FloatValue(1)))
		want1 = append(want1, fmt.Sprintf("%d 1", k))
		want2 = append(want2, fmt.Sprintf("%d 2", k))
	}
	mustCommit(t, s, 1)
	same(t, "checkpoint 1", psql(t, direct, "SELECT id, price FROM t"), want1...)
	for k := range int64(20) {
		mustWrite(t, s, up(types.IntValue(k), types.FloatValue(2)))
	}
	commitLosingAck(t, s, proxy, 2)
	same(t, "after the lost acknowledgement", psql(t, direct, "SELECT id, price FROM t"), want2...)
	same(t, "progress", psql(t, direct, "SELECT sink, checkpoint FROM streamsql_sink_progress"), "s1 2", "s1#1 2")
	if !strings.Contains(logs.String(), "Postgres unavailable, retrying") {
		t.Errorf("no retry logged:\n%s", logs.String())
	}
}
