package pgwire

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamsql/streamsql/engine"
)

// startupBytes is a valid StartupMessage for user "fuzz".
func startupBytes() []byte {
	b, _ := (&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "fuzz"}}).Encode(nil)
	return b
}

func msgBytes(msgs ...pgproto3.FrontendMessage) []byte {
	var b []byte
	for _, m := range msgs {
		b, _ = m.Encode(b)
	}
	return b
}

// FuzzBackend feeds arbitrary bytes to a session as the client's stream
// (after a valid startup, and as the startup itself): the session may
// answer or drop the connection, but must not panic, hang or allocate
// beyond the message size cap.
func FuzzBackend(f *testing.F) {
	e, err := engine.Open(engine.Options{StateDir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	defer e.Close()
	srv := New(Config{Engine: e, MaxMessageSize: 1 << 16, StartupTimeout: 2 * time.Second})
	seeds := [][]byte{
		msgBytes(&pgproto3.Query{String: "SHOW TimeZone; SET application_name = 'x'"}),
		msgBytes(&pgproto3.Parse{Name: "s", Query: "SELECT $1"}, &pgproto3.Bind{PreparedStatement: "s", Parameters: [][]byte{[]byte("1")}}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{MaxRows: 1}, &pgproto3.Sync{}),
		{'B', 0, 0, 0, 7, 0, 0, 0}, // the malformed Bind that crashes pgproto3/v2
		{'Q', 0, 0, 0, 3},
		{'P', 0x7f, 0xff, 0xff, 0xff},
		{'X', 0, 0, 0, 4},
		msgBytes(&pgproto3.Bind{Parameters: [][]byte{nil, {1, 2}}}, &pgproto3.Execute{}, &pgproto3.Sync{}),
	}
	for _, s := range seeds {
		f.Add(false, s)
		f.Add(true, s)
	}
	f.Fuzz(func(t *testing.T, raw bool, in []byte) {
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() {
			srv.ServeConn(server)
			close(done)
		}()
		go func() { _, _ = io.Copy(io.Discard, client) }()
		if !raw {
			in = append(startupBytes(), in...)
		}
		_ = client.SetWriteDeadline(time.Now().Add(2 * time.Second))
		_, _ = client.Write(in)
		_ = client.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("session did not end on input %q", in)
		}
	})
}

// TestMalformedMessages sends truncated, oversized and garbage messages on
// their own connections: each is dropped, while the server and a session
// opened before them keep working.
func TestMalformedMessages(t *testing.T) {
	addr, _ := startServerWith(t, Config{MaxMessageSize: 1 << 20})
	good := connect(t, addr, pgx.QueryExecModeExec)
	mustExec(t, good, "SHOW TimeZone")
	oversized := binary.BigEndian.AppendUint32([]byte{'Q'}, 1<<30)
	cases := []struct {
		name    string
		startup bool
		bytes   []byte
	}{
		{"garbage before startup", false, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")},
		{"huge startup length", false, []byte{0x7f, 0xff, 0xff, 0xff, 0, 3, 0, 0}},
		{"short startup length", false, []byte{0, 0, 0, 2}},
		{"truncated query", true, []byte{'Q', 0, 0, 0, 100, 'S', 'E'}},
		{"oversized query", true, oversized},
		{"negative length", true, []byte{'Q', 0xff, 0xff, 0xff, 0xff}},
		{"unknown type", true, []byte{'z', 0, 0, 0, 4}},
		{"7-byte bind", true, []byte{'B', 0, 0, 0, 7, 0, 0, 0}},
		{"bind with a bad count", true, []byte{'B', 0, 0, 0, 12, 0, 0, 0, 1, 0, 9, 0, 0}},
		{"parse without terminators", true, []byte{'P', 0, 0, 0, 8, 'a', 'b', 'c', 'd'}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
			if c.startup {
				if _, err := conn.Write(startupBytes()); err != nil {
					t.Fatal(err)
				}
				if err := readUntilReady(conn); err != nil {
					t.Fatal(err)
				}
			}
			_, _ = conn.Write(c.bytes)
			if c.name == "truncated query" {
				// The server waits for the rest; the client gives up.
				_ = conn.(*net.TCPConn).CloseWrite()
			}
			// The server closes the connection (after a FATAL at most).
			rest, err := io.ReadAll(conn)
			if err != nil {
				t.Fatalf("connection not closed: %v (read %q)", err, rest)
			}
			if len(rest) > 0 && rest[0] != 'E' {
				t.Fatalf("unexpected answer %q", rest)
			}
		})
	}
	mustExec(t, good, "SHOW TimeZone")
	again := connect(t, addr, pgx.QueryExecModeSimpleProtocol)
	mustExec(t, again, "SHOW TimeZone")
}

// readUntilReady reads backend messages up to the first ReadyForQuery.
func readUntilReady(conn net.Conn) error {
	fe := pgproto3.NewFrontend(conn, conn)
	for {
		m, err := fe.Receive()
		if err != nil {
			return err
		}
		if _, ok := m.(*pgproto3.ReadyForQuery); ok {
			return nil
		}
	}
}
