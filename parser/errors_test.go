package parser

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
)

func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		sql       string
		code      string
		line, col int
		near      string // the quoted near text; "-" when the message has none
		detail    string // a substring of the message, when set
	}{
		{name: "watermark typo", sql: "CREATE SOURCE s (\n  ts TIMESTAMP,\n  WATERMARK FRO ts AS ts\n)",
			code: sqlerr.SyntaxError, line: 3, col: 3, near: "WATERMARK FRO ts AS ts", detail: "WATERMARK FOR col AS col"},
		{name: "watermark not bounded out-of-orderness", sql: "CREATE SOURCE s (ts TIMESTAMP, u TIMESTAMP,\n  WATERMARK FOR ts AS u - INTERVAL '1' SECOND)",
			code: sqlerr.SyntaxError, line: 2, col: 23, near: "u - INTERVAL '1' SECOND)", detail: "ts minus an interval"},
		{name: "watermark plus", sql: "CREATE SOURCE s (ts TIMESTAMP,\n  WATERMARK FOR ts AS ts + INTERVAL '1' SECOND)",
			code: sqlerr.SyntaxError, line: 2, col: 26, near: "+ INTERVAL '1' SECOND)"},
		{name: "watermark bad unit", sql: "CREATE SOURCE s (ts TIMESTAMP, WATERMARK FOR ts AS ts - INTERVAL '1 fortnight')",
			code: sqlerr.SyntaxError, line: 1, col: 66, near: "'1 fortnight')", detail: "invalid interval"},
		{name: "watermark column undeclared", sql: "CREATE SOURCE s (ts TIMESTAMP, WATERMARK FOR t2 AS t2)",
			code: sqlerr.SyntaxError, line: 1, col: 32, near: "WATERMARK FOR t2 AS t2)", detail: "not declared"},
		{name: "error inside IS DISTINCT FROM keeps its position", sql: "SELECT a IS DISTINCT FROM b +* 2 FROM t",
			code: sqlerr.SyntaxError, line: 1, col: 30, near: "* 2 FROM t"},
		{name: "regex match without operand", sql: "SELECT a ~ FROM t",
			code: sqlerr.SyntaxError, line: 1, col: 10, near: "~ FROM t", detail: "operand on each side"},
		// The operand ends at the +, so TiDB reports the text inserted after
		// it, which maps to the end of the operand.
		{name: "error after a regex match keeps its position", sql: "SELECT x,\n  a ~* 'b' + FROM t",
			code: sqlerr.SyntaxError, line: 2, col: 13, near: " FROM t"},
		{name: "unknown column type", sql: "CREATE SOURCE s (a BIGNIT)", code: sqlerr.SyntaxError, line: 1, col: 20, near: "BIGNIT)"},
		{name: "unsupported column type", sql: "CREATE SOURCE s (a YEAR)", code: sqlerr.FeatureNotSupport, line: 1, col: 20, near: "-"},
		{name: "option without value", sql: "CREATE SINK k FROM v WITH (connector = )", code: sqlerr.SyntaxError, line: 1, col: 40, near: ")"},
		{name: "duplicate option", sql: "CREATE SINK k FROM v WITH (a = 1, A = 2)", code: sqlerr.SyntaxError, line: 1, col: 35, near: "A = 2)", detail: "twice"},
		{name: "emit typo", sql: "CREATE MATERIALIZED VIEW v AS\nSELECT * FROM t\nEMIT ON WINDOW CLOS",
			code: sqlerr.SyntaxError, line: 3, col: 16, near: "CLOS", detail: "expected CLOSE"},
		{name: "late data typo", sql: "CREATE MATERIALIZED VIEW v AS SELECT * FROM t\n  LATE DATA SIDE t2",
			code: sqlerr.SyntaxError, line: 2, col: 13, near: "SIDE t2"},
		{name: "emit every zero", sql: "CREATE MATERIALIZED VIEW v AS SELECT * FROM t EMIT EVERY INTERVAL '0' SECOND",
			code: sqlerr.SyntaxError, line: 1, col: 67, near: "'0' SECOND", detail: "positive"},
		{name: "clause twice", sql: "CREATE MATERIALIZED VIEW v AS SELECT * FROM t EMIT ON UPDATE EMIT ON UPDATE",
			code: sqlerr.SyntaxError, line: 1, col: 62, near: "EMIT ON UPDATE", detail: "twice"},
		{name: "tumble missing interval", sql: "SELECT * FROM\n  TUMBLE(bids, date_time, 10) t",
			code: sqlerr.SyntaxError, line: 2, col: 27, near: "10) t", detail: "INTERVAL"},
		{name: "hop missing size", sql: "SELECT * FROM HOP(bids, ts, INTERVAL '1' SECOND)",
			code: sqlerr.SyntaxError, line: 1, col: 48, near: ")", detail: "HOP(source, time_col, slide, size)"},
		{name: "flink descriptor unclosed", sql: "SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts, INTERVAL '1' SECOND)))",
			code: sqlerr.SyntaxError, line: 1, col: 50, near: ", INTERVAL '1' SECOND)))", detail: `expected ")"`},
		{name: "plain SQL on line 3", sql: "CREATE SOURCE s (a BIGINT);\nSELECT a\nFROM s WHERE a = = 1;",
			code: sqlerr.SyntaxError, line: 3, col: 18, near: "= 1"},
		{name: "after a :: cast", sql: "SELECT a::bigint,\n  b::double precision c d FROM t",
			code: sqlerr.SyntaxError, line: 2, col: 25, near: "d FROM t"},
		{name: "inside a :: cast", sql: "SELECT a:: FROM t", code: sqlerr.SyntaxError, line: 1, col: 12, near: "FROM t", detail: "type name"},
		{name: "after a rewritten interval", sql: "SELECT ts - INTERVAL '10 seconds' AS x\nFROM t WHERE WHERE",
			code: sqlerr.SyntaxError, line: 2, col: 14, near: "WHERE"},
		{name: "after a lengthened interval", sql: "SELECT ts - INTERVAL '1500 ms', x::int AS y FROM t WHERE WHERE",
			code: sqlerr.SyntaxError, line: 1, col: 58, near: "WHERE"},
		{name: "first problem wins: TiDB before TVF", sql: "SELECT = FROM TUMBLE(b, ts, 5)",
			code: sqlerr.SyntaxError, line: 1, col: 8, near: "= FROM TUMBLE(b, ts, 5)"},
		{name: "first problem wins: TVF before TiDB", sql: "SELECT * FROM TUMBLE(b, ts, 5) WHERE = 1",
			code: sqlerr.SyntaxError, line: 1, col: 29, near: "5) WHERE = 1"},
		{name: "first statement wins", sql: "DROP SINK;\nSELECT = 1", code: sqlerr.SyntaxError, line: 1, col: 10, near: ""},
		{name: "unterminated string", sql: "FLUSH;\nSELECT 'abc", code: sqlerr.SyntaxError, line: 2, col: 8, near: "'abc", detail: "unterminated"},
		{name: "invalid UTF-8", sql: "SELECT 1;\nSELECT 'a\xff'", code: sqlerr.SyntaxError, line: 2, col: 10, near: "\xff'", detail: "UTF-8"},
		{name: "hash", sql: "SELECT a # b", code: sqlerr.SyntaxError, line: 1, col: 10, near: "# b"},
		{name: "reserved placeholder", sql: "SELECT * FROM __w0", code: sqlerr.SyntaxError, line: 1, col: 15, near: "__w0", detail: "reserved"},
		{name: "tvf outside FROM", sql: "SELECT TUMBLE(a, b, INTERVAL '1' SECOND)", code: sqlerr.SyntaxError, line: 1, col: 8, near: "TUMBLE(a, b, INTERVAL '1' SECOND)", detail: "in FROM"},
		{name: "after an auto-quoted name", sql: "SELECT key, rank\n  FROM t WHERE = 1", code: sqlerr.SyntaxError, line: 2, col: 16, near: "= 1"},
		{name: "long statement", sql: "SELECT a FROM t\nWHERE = 1 AND " + strings.Repeat("b = 1 AND ", 400) + "c = 2",
			code: sqlerr.SyntaxError, line: 2, col: 7, near: "= 1 AND b = 1 AND b = 1 AND b = 1 AND b"},
		{name: "unsupported statement", sql: "TRUNCATE t", code: sqlerr.FeatureNotSupport, line: 1, col: 1, near: "-", detail: "TRUNCATE"},
		{name: "multi-table update", sql: "UPDATE t, u SET t.a = 1", code: sqlerr.FeatureNotSupport, line: 1, col: 1, near: "-", detail: "several tables"},
		{name: "delete limit", sql: "DELETE FROM t LIMIT 1", code: sqlerr.FeatureNotSupport, line: 1, col: 1, near: "-", detail: "LIMIT"},
		{name: "unsupported create", sql: "\n  CREATE INDEX i ON t (a)", code: sqlerr.FeatureNotSupport, line: 2, col: 3, near: "-", detail: "CREATE INDEX"},
		{name: "insert set", sql: "INSERT INTO t SET a = 1", code: sqlerr.FeatureNotSupport, line: 1, col: 1, near: "-", detail: "INSERT ... SET"},
		{name: "insert select error", sql: "INSERT INTO t (a)\nSELECT FROM WHERE", code: sqlerr.SyntaxError, line: 2, col: 8, near: "FROM WHERE"},
		{name: "insert on duplicate key", sql: "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 2", code: sqlerr.FeatureNotSupport, line: 1, col: 1, near: "-", detail: "ON DUPLICATE"},
		{name: "alter table", sql: "ALTER TABLE t ADD PRIMARY KEY (a)", code: sqlerr.FeatureNotSupport, line: 1, col: 1, near: "-", detail: "ALTER TABLE"},
		{name: "cast to year", sql: "SELECT CAST(x AS YEAR)", code: sqlerr.FeatureNotSupport, line: 1, col: 18, near: "-"},
		{name: "garbage", sql: "FROB the thing", code: sqlerr.SyntaxError, line: 1, col: 1, near: "FROB the thing"},
		{name: "view without query", sql: "CREATE MATERIALIZED VIEW v AS EMIT ON UPDATE", code: sqlerr.SyntaxError, line: 1, col: 31, near: "EMIT ON UPDATE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.sql)
			var e *sqlerr.Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse: %v, want an *sqlerr.Error", err)
			}
			if e.Code != tt.code || e.Pos.Line != tt.line || e.Pos.Col != tt.col {
				t.Errorf("got %s at %d:%d (%s), want %s at %d:%d", e.Code, e.Pos.Line, e.Pos.Col, e.Msg, tt.code, tt.line, tt.col)
			}
			if want := sqlerr.PosAt(tt.sql, e.Pos.Offset); want != e.Pos {
				t.Errorf("Pos %+v does not match its offset (%+v)", e.Pos, want)
			}
			if tt.code == sqlerr.SyntaxError {
				prefix := fmt.Sprintf("syntax error at line %d, column %d near %q", tt.line, tt.col, tt.near)
				if !strings.HasPrefix(e.Msg, prefix) {
					t.Errorf("message %q, want prefix %q", e.Msg, prefix)
				}
			}
			if !strings.Contains(e.Msg, tt.detail) {
				t.Errorf("message %q does not contain %q", e.Msg, tt.detail)
			}
		})
	}
}
