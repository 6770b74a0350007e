package pgwire

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamsql/streamsql/types"
)

// rawConn is a protocol-level client: it sends frontend messages and
// renders what comes back, one line per message.
type rawConn struct {
	t  *testing.T
	fe *pgproto3.Frontend
}

func dialRaw(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := c.Write(startupBytes()); err != nil {
		t.Fatal(err)
	}
	r := &rawConn{t: t, fe: pgproto3.NewFrontend(c, c)}
	r.until()
	return r
}

func (r *rawConn) send(msgs ...pgproto3.FrontendMessage) {
	for _, m := range msgs {
		r.fe.Send(m)
	}
	if err := r.fe.Flush(); err != nil {
		r.t.Fatal(err)
	}
}

// until reads messages up to ReadyForQuery and renders them.
func (r *rawConn) until() string {
	r.t.Helper()
	return r.upTo("ReadyForQuery")
}

// upTo reads messages up to one of type last (ReadyForQuery,
// PortalSuspended) and renders those before it, one line each.
func (r *rawConn) upTo(last string) string {
	r.t.Helper()
	var out []string
	for {
		m, err := r.fe.Receive()
		if err != nil {
			r.t.Fatalf("receive: %v (after %q)", err, out)
		}
		if strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3.") == last {
			return strings.Join(out, "\n")
		}
		switch m := m.(type) {
		case *pgproto3.ParameterStatus, *pgproto3.BackendKeyData, *pgproto3.AuthenticationOk, *pgproto3.NoticeResponse:
		case *pgproto3.DataRow:
			var vals []string
			for _, v := range m.Values {
				vals = append(vals, string(v))
			}
			out = append(out, "row "+strings.Join(vals, ","))
		case *pgproto3.RowDescription:
			var f []string
			for _, d := range m.Fields {
				f = append(f, fmt.Sprintf("%s:%d", d.Name, d.DataTypeOID))
			}
			out = append(out, "desc "+strings.Join(f, ","))
		case *pgproto3.ParameterDescription:
			out = append(out, fmt.Sprintf("params %v", m.ParameterOIDs))
		case *pgproto3.CommandComplete:
			out = append(out, "complete "+string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			out = append(out, "error "+m.Code)
		default:
			out = append(out, strings.TrimPrefix(fmt.Sprintf("%T", m), "*pgproto3."))
		}
	}
}

// TestExtendedProtocol drives Parse/Bind/Describe/Execute/Close/Sync
// directly: row limits, named statements and portals, parameter type
// inference, errors skipping to Sync, empty queries.
func TestExtendedProtocol(t *testing.T) {
	addr, _ := startServer(t)
	r := dialRaw(t, addr)
	r.send(&pgproto3.Query{String: "CREATE SOURCE s (k BIGINT, v VARCHAR) WITH (connector = 'memory'); CREATE MATERIALIZED VIEW v AS SELECT k, v FROM s; INSERT INTO s VALUES (1, 'a'), (2, 'b'), (3, 'c'); FLUSH"})
	if got := r.until(); got != "complete CREATE SOURCE\ncomplete CREATE MATERIALIZED VIEW\ncomplete INSERT 0 3\ncomplete FLUSH" {
		t.Fatalf("setup:\n%s", got)
	}
	steps := []struct {
		name string
		msgs []pgproto3.FrontendMessage
		want string
	}{
		{"describe statement infers the parameter type", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "q", Query: "SELECT k, v FROM v WHERE k >= $1"},
			&pgproto3.Describe{ObjectType: 'S', Name: "q"}, &pgproto3.Sync{}},
			"ParseComplete\nparams [20]\ndesc k:20,v:25"},
		{"row limit suspends the portal", []pgproto3.FrontendMessage{
			&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "q", Parameters: [][]byte{[]byte("2")}},
			&pgproto3.Execute{Portal: "p", MaxRows: 1},
			&pgproto3.Execute{Portal: "p", MaxRows: 1},
			&pgproto3.Execute{Portal: "p", MaxRows: 1},
			&pgproto3.Close{ObjectType: 'P', Name: "p"}, &pgproto3.Sync{}},
			// The server knows the portal is done after row 3 and says so
			// at once (Postgres would suspend once more); executing a
			// finished portal completes with no rows.
			"BindComplete\nrow 2,b\nPortalSuspended\nrow 3,c\ncomplete SELECT 1\ncomplete SELECT 0\nCloseComplete"},
		{"binary parameter and result", []pgproto3.FrontendMessage{
			&pgproto3.Bind{PreparedStatement: "q", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 3}}, ResultFormatCodes: []int16{0, 1}},
			&pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"BindComplete\ndesc k:20,v:25\nrow 3,c\ncomplete SELECT 1"},
		{"an error skips to Sync", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SELECT nope FROM v"},
			&pgproto3.Bind{}, &pgproto3.Execute{},
			&pgproto3.Parse{Name: "skipped", Query: "SHOW TimeZone"}, &pgproto3.Describe{ObjectType: 'S', Name: "skipped"}, &pgproto3.Sync{}},
			"ParseComplete\nBindComplete\nerror 42703"},
		{"the session works after it", []pgproto3.FrontendMessage{
			&pgproto3.Bind{PreparedStatement: "q", Parameters: [][]byte{[]byte("3")}}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"BindComplete\nrow 3,c\ncomplete SELECT 1"},
		{"duplicate statement name", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Name: "q", Query: "SELECT 1"}, &pgproto3.Sync{}},
			"error 42P05"},
		{"closed statement", []pgproto3.FrontendMessage{
			&pgproto3.Close{ObjectType: 'S', Name: "q"}, &pgproto3.Bind{PreparedStatement: "q"}, &pgproto3.Sync{}},
			"CloseComplete\nerror 26000"},
		{"wrong parameter count", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SELECT k FROM v WHERE k = $1"}, &pgproto3.Bind{}, &pgproto3.Sync{}},
			"ParseComplete\nerror 08P01"},
		{"empty query", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: " -- nothing"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"ParseComplete\nBindComplete\nNoData\nEmptyQueryResponse"},
		{"two statements cannot be prepared", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SHOW TimeZone; SHOW TimeZone"}, &pgproto3.Sync{}},
			"error 42601"},
		{"session statements", []pgproto3.FrontendMessage{
			&pgproto3.Parse{Query: "SET application_name = 'raw'"}, &pgproto3.Bind{}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "SHOW application_name"}, &pgproto3.Bind{}, &pgproto3.Describe{ObjectType: 'P'}, &pgproto3.Execute{},
			&pgproto3.Parse{Query: "BEGIN"}, &pgproto3.Bind{}, &pgproto3.Execute{}, &pgproto3.Sync{}},
			"ParseComplete\nBindComplete\ncomplete SET\nParseComplete\nBindComplete\ndesc application_name:25\nrow raw\ncomplete SHOW\nParseComplete\nBindComplete\ncomplete BEGIN"},
		{"simple query with an empty statement and an error in the middle", []pgproto3.FrontendMessage{
			&pgproto3.Query{String: "SHOW TimeZone;; SELECT nope FROM v; SHOW TimeZone"}},
			"desc TimeZone:25\nrow UTC\ncomplete SHOW\nerror 42703"},
		{"empty simple query", []pgproto3.FrontendMessage{&pgproto3.Query{String: " ; "}},
			"EmptyQueryResponse"},
	}
	for _, s := range steps {
		r.send(s.msgs...)
		if got := r.until(); got != s.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", s.name, got, s.want)
		}
	}
}

// TestSplitAndSubstitute covers the lexical rules statements are split
// and parameters substituted by.
func TestSplitAndSubstitute(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1; SELECT 2", "SELECT 1|SELECT 2"},
		{"SELECT ';' ; SELECT \"a;b\"", "SELECT ';'|SELECT \"a;b\""},
		{"SELECT 1 -- c; d\n; SELECT $$;$$", "SELECT 1 -- c; d|SELECT $$;$$"},
		{"/* a; /* b; */ c; */ SELECT E'\\';' ; ;", "SELECT E'\\';'"},
		{"  ;  -- only a comment", ""},
	} {
		var got []string
		for _, p := range splitStatements(c.in) {
			got = append(got, p.text)
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("split %q: %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"SELECT $1, '$1', \"$1\", $2 -- $1", "SELECT 'x''y', '$1', \"$1\", (-5) -- $1"},
		{"SELECT a$1, $12 FROM t", "SELECT a$1, $12 FROM t"},
		{"SELECT $tag$ $1 $tag$, $1", "SELECT $tag$ $1 $tag$, 'x''y'"},
	} {
		got, _, err := bindText(c.in, []typesValue{strValue("x'y"), intValue(-5)})
		if err != nil && !strings.Contains(c.in, "$12") {
			t.Errorf("substitute %q: %v", c.in, err)
			continue
		}
		if err == nil && got != c.want {
			t.Errorf("substitute %q: %q, want %q", c.in, got, c.want)
		}
	}
}

type typesValue = types.Value

func strValue(s string) types.Value { return types.StringValue(s) }
func intValue(i int64) types.Value  { return types.IntValue(i) }
