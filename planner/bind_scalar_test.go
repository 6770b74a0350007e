package planner

import (
	"github.com/streamsql/streamsql/funcs"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// testScope resolves columns of one table "t" and hands out aggregate
// slots after the table's columns.
type testScope struct {
	schema types.Schema
	noAggs bool
	aggs   []string
}

func (s *testScope) Resolve(table, column string) (int, types.Kind, error) {
	if table != "" && !strings.EqualFold(table, "t") {
		return 0, 0, sqlerr.New(sqlerr.UndefinedTable, "missing FROM-clause entry for table %q", table)
	}
	i := s.schema.Index(column)
	if i < 0 {
		return 0, 0, sqlerr.New(sqlerr.UndefinedColumn, "column %q does not exist", column)
	}
	return i, s.schema[i].Type, nil
}

func (s *testScope) Aggregate(agg *ast.AggregateFuncExpr) (int, types.Kind, error) {
	if s.noAggs {
		return 0, 0, sqlerr.New(sqlerr.GroupingError, "aggregate functions are not allowed in WHERE")
	}
	s.aggs = append(s.aggs, agg.F)
	return len(s.schema) + len(s.aggs) - 1, types.Int, nil
}

var testSchema = types.Schema{
	{Name: "a", Type: types.Int},
	{Name: "b", Type: types.Int},
	{Name: "f", Type: types.Float},
	{Name: "s", Type: types.String},
	{Name: "ts", Type: types.Timestamp},
	{Name: "ok", Type: types.Bool},
	{Name: "iv", Type: types.Interval},
}

func parseExpr(t *testing.T, expr string) ast.ExprNode {
	t.Helper()
	p := parser.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModePipesAsConcat)
	stmts, _, err := p.Parse("SELECT "+expr+" FROM t", "", "")
	if err != nil {
		t.Fatalf("parse %q: %v", expr, err)
	}
	return stmts[0].(*ast.SelectStmt).Fields.Fields[0].Expr
}

func bindExpr(t *testing.T, expr string, scope Scope) (Scalar, error) {
	t.Helper()
	if scope == nil {
		scope = &testScope{schema: testSchema}
	}
	return BindScalar(parseExpr(t, expr), scope)
}

func TestBindScalar(t *testing.T) {
	tests := []struct {
		expr string
		want string
		kind types.Kind
	}{
		// Literals.
		{"1", "1", types.Int},
		{"-5", "-5", types.Int},
		{"1.5", "1.5", types.Decimal},
		{"1e3", "1000", types.Float},
		{"'x'", "'x'", types.String},
		{"NULL", "NULL", types.Null},
		{"TRUE", "t", types.Bool},
		{"FALSE", "f", types.Bool},
		// Columns.
		{"a", "a", types.Int},
		{"t.a", "t.a", types.Int},
		{"(a)", "a", types.Int},
		// Arithmetic.
		{"a + 1", "(a + 1)", types.Int},
		{"a - b * 2", "(a - (b * 2))", types.Int},
		{"a / 2", "(a / 2)", types.Int},
		{"a DIV 2", "(a / 2)", types.Int},
		{"a % 123 = 0", "((a % 123) = 0)", types.Bool},
		{"mod(a, 3)", "(a % 3)", types.Int},
		{"0.908 * a", "(0.908 * CAST(a AS DECIMAL))", types.Decimal},
		{"a + f", "(a + f)", types.Float},
		{"-a", "neg(a)", types.Int},
		{"-f", "neg(f)", types.Float},
		{"+a", "a", types.Int},
		{"a + NULL", "(a + NULL)", types.Int},
		{"'2' + a", "(2 + a)", types.Int},
		// Intervals and timestamps.
		{"ts - INTERVAL '5' SECOND", "(ts - INTERVAL '00:00:05')", types.Timestamp},
		{"ts + INTERVAL 5 SECOND", "(ts + INTERVAL '00:00:05')", types.Timestamp},
		{"ts + INTERVAL '1.5' SECOND", "(ts + INTERVAL '00:00:01.5')", types.Timestamp},
		{"INTERVAL 1 MINUTE + ts", "(ts + INTERVAL '00:01:00')", types.Timestamp},
		{"date_add(ts, INTERVAL 2 HOUR)", "(ts + INTERVAL '02:00:00')", types.Timestamp},
		{"ts - INTERVAL 1 DAY", "(ts - INTERVAL '1 day')", types.Timestamp},
		{"ts + INTERVAL 1 MONTH", "(ts + INTERVAL '1 mon')", types.Timestamp},
		{"ts - INTERVAL -5 SECOND", "(ts - INTERVAL '-00:00:05')", types.Timestamp},
		{"ts - ts", "(ts - ts)", types.Interval},
		{"ts - '2024-01-01'", "(ts - '2024-01-01 00:00:00')", types.Interval},
		{"ts - '1 hour'", "(ts - INTERVAL '01:00:00')", types.Timestamp},
		{"iv * 2", "(iv * 2)", types.Interval},
		{"ts + iv", "(ts + iv)", types.Timestamp},
		{"'2024-01-01 00:00:05' + INTERVAL 1 SECOND", "('2024-01-01 00:00:05' + INTERVAL '00:00:01')", types.Timestamp},
		// Comparisons.
		{"a = 1", "(a = 1)", types.Bool},
		{"a <> 1", "(a <> 1)", types.Bool},
		{"a != 1", "(a <> 1)", types.Bool},
		{"a < f", "(a < f)", types.Bool},
		{"a >= 1.5", "(CAST(a AS DECIMAL) >= 1.5)", types.Bool},
		{"s <= 'x'", "(s <= 'x')", types.Bool},
		{"ts > '2024-01-01 00:00:05'", "(ts > '2024-01-01 00:00:05')", types.Bool},
		{"'2024-01-01' <= ts", "('2024-01-01 00:00:00' <= ts)", types.Bool},
		{"ts = '2024-01-01T00:00:05Z'", "(ts = '2024-01-01 00:00:05')", types.Bool},
		{"a = '7'", "(a = 7)", types.Bool},
		{"ok = 't'", "(ok = t)", types.Bool},
		{"iv > '10 seconds'", "(iv > INTERVAL '00:00:10')", types.Bool},
		{"a <=> NULL", "is_not_distinct_from(a, NULL)", types.Bool},
		// Logic.
		{"a > 1 AND b < 2", "((a > 1) and (b < 2))", types.Bool},
		{"a > 1 OR ok", "((a > 1) or ok)", types.Bool},
		{"NOT ok", "not(ok)", types.Bool},
		{"ok XOR ok", "(ok <> ok)", types.Bool},
		{"a IS NULL", "is_null(a)", types.Bool},
		{"a IS NOT NULL", "is_not_null(a)", types.Bool},
		{"ok IS TRUE", "is_true(ok)", types.Bool},
		{"ok IS NOT FALSE", "is_not_false(ok)", types.Bool},
		{"a BETWEEN 1 AND 10", "((a >= 1) and (a <= 10))", types.Bool},
		{"a NOT BETWEEN 1 AND 10", "((a < 1) or (a > 10))", types.Bool},
		{"ts BETWEEN '2024-01-01' AND ts + INTERVAL 1 HOUR", "((ts >= '2024-01-01 00:00:00') and (ts <= (ts + INTERVAL '01:00:00')))", types.Bool},
		{"a IN (1, 2, 3)", "in(a, 1, 2, 3)", types.Bool},
		{"a NOT IN (1, 2.5)", "not(in(CAST(a AS DECIMAL), 1, 2.5))", types.Bool},
		{"s IN ('x', NULL)", "in(s, 'x', NULL)", types.Bool},
		{"s LIKE 'x%'", "(s like 'x%')", types.Bool},
		{"s NOT LIKE '_y'", "not((s like '_y'))", types.Bool},
		{"s LIKE 'x!%' ESCAPE '!'", "like(s, 'x!%', '!')", types.Bool},
		{"s ILIKE 'X%'", "ilike(s, 'X%')", types.Bool},
		// Conditionals.
		{"CASE WHEN a > 1 THEN 'big' ELSE 'small' END", "CASE WHEN (a > 1) THEN 'big' ELSE 'small' END", types.String},
		{"CASE a WHEN 1 THEN 1.5 WHEN 2 THEN 2 END", "CASE a WHEN 1 THEN 1.5 WHEN 2 THEN 2 END", types.Decimal},
		{"CASE WHEN ok THEN a ELSE f END", "CASE WHEN ok THEN CAST(a AS DOUBLE) ELSE f END", types.Float},
		{"CASE ts WHEN '2024-01-01' THEN 1 END", "CASE ts WHEN '2024-01-01 00:00:00' THEN 1 END", types.Int},
		{"CASE WHEN ok THEN NULL ELSE s END", "CASE WHEN ok THEN NULL ELSE s END", types.String},
		{"coalesce(a, 0)", "coalesce(a, 0)", types.Int},
		{"coalesce(f, a, 0)", "coalesce(f, CAST(a AS DOUBLE), 0)", types.Float},
		{"ifnull(s, 'none')", "coalesce(s, 'none')", types.String},
		{"nullif(a, 0)", "nullif(a, 0)", types.Int},
		{"if(ok, 1, 2)", "CASE WHEN ok THEN 1 ELSE 2 END", types.Int},
		{"greatest(a, b, 3)", "greatest(a, b, 3)", types.Int},
		{"least(ts, '2024-01-01')", "least(ts, '2024-01-01 00:00:00')", types.Timestamp},
		// Casts.
		{"CAST(a AS CHAR)", "CAST(a AS VARCHAR)", types.String},
		{"CAST(s AS SIGNED)", "CAST(s AS BIGINT)", types.Int},
		{"CAST(f AS UNSIGNED)", "CAST(f AS BIGINT)", types.Int},
		{"CAST(a AS DOUBLE)", "CAST(a AS DOUBLE)", types.Float},
		{"CAST(a AS REAL)", "CAST(a AS DOUBLE)", types.Float},
		{"CAST(f AS DECIMAL(10,2))", "CAST(f AS DECIMAL(10,2))", types.Decimal},
		{"CAST(s AS DATETIME)", "CAST(s AS TIMESTAMP)", types.Timestamp},
		{"CAST(ts AS DATE)", "CAST(ts AS DATE)", types.Date},
		{"CAST('0.2' AS DECIMAL(12,2))", "0.20", types.Decimal},
		{"CAST(1 AS DECIMAL(12,2))", "1.00", types.Decimal},
		{"CAST(a AS DECIMAL(0,0))", "CAST(a AS DECIMAL)", types.Decimal},
		{"CAST('2024-01-01' AS DATE)", "DATE '2024-01-01'", types.Date},
		{"0.1 + 0.2", "(0.1 + 0.2)", types.Decimal},
		{"0.5 + f", "(0.5 + f)", types.Float},
		{"CAST(ts AS DATE) + 1", "(CAST(ts AS DATE) + 1)", types.Date},
		{"CAST(ts AS DATE) - CAST(ts AS DATE)", "(CAST(ts AS DATE) - CAST(ts AS DATE))", types.Int},
		{"CAST(ts AS DATE) < ts", "(CAST(CAST(ts AS DATE) AS TIMESTAMP) < ts)", types.Bool},
		{"CAST('2024-01-01 10:00:00' AS DATETIME)", "'2024-01-01 10:00:00'", types.Timestamp},
		{"CAST('12' AS SIGNED)", "12", types.Int},
		{"CAST(ok AS SIGNED)", "CAST(ok AS BIGINT)", types.Int},
		{"CAST(NULL AS CHAR)", "CAST(NULL AS VARCHAR)", types.String},
		// String functions.
		{"lower(s)", "lower(s)", types.String},
		{"UPPER(s)", "upper(s)", types.String},
		{"length(s)", "length(s)", types.Int},
		{"char_length(s)", "length(s)", types.Int},
		{"substr(s, 2)", "substr(s, 2)", types.String},
		{"substring(s, 2, 3)", "substr(s, 2, 3)", types.String},
		{"substring(s FROM 2 FOR 3)", "substr(s, 2, 3)", types.String},
		{"concat(s, a, 'x')", "concat(s, a, 'x')", types.String},
		{"s || 'x'", "concat(s, 'x')", types.String},
		{"trim(s)", "trim(s)", types.String},
		{"trim('x' FROM s)", "trim(s, 'x')", types.String},
		{"trim(LEADING 'x' FROM s)", "ltrim(s, 'x')", types.String},
		{"trim(TRAILING FROM s)", "rtrim(s, ' ')", types.String},
		{"replace(s, 'a', 'b')", "replace(s, 'a', 'b')", types.String},
		{"position('a' IN s)", "strpos(s, 'a')", types.Int},
		{"instr(s, 'a')", "strpos(s, 'a')", types.Int},
		{"split_part(s, ',', 2)", "split_part(s, ',', 2)", types.String},
		{"left(s, 2)", "left(s, 2)", types.String},
		{"right(s, 2)", "right(s, 2)", types.String},
		// Math.
		{"abs(a)", "abs(a)", types.Int},
		{"abs(f)", "abs(f)", types.Float},
		{"floor(f)", "floor(f)", types.Float},
		{"ceiling(f)", "ceil(f)", types.Float},
		{"round(f)", "round(f)", types.Float},
		{"round(f, 2)", "round(f, 2)", types.Float},
		{"round(a, 2)", "round(CAST(a AS DECIMAL), 2)", types.Decimal},
		{"power(a, 2)", "power(CAST(a AS DOUBLE), 2)", types.Float},
		{"sqrt(f)", "sqrt(f)", types.Float},
		{"ln(f)", "ln(f)", types.Float},
		{"log(f)", "log(f)", types.Float},
		// Postgres's overloads: an Int or double argument of one-argument
		// sqrt, ln, exp and log is a double, a numeric one numeric; power
		// is numeric when one side is numeric and the other not a double;
		// two-argument log is numeric only.
		{"log(2, f)", "log(2, f)", types.Decimal},
		{"log(a, 8)", "log(CAST(a AS DECIMAL), 8)", types.Decimal},
		{"sqrt(a)", "sqrt(CAST(a AS DOUBLE))", types.Float},
		{"sqrt(2)", "sqrt(2)", types.Float},
		{"sqrt(2.5)", "sqrt(2.5)", types.Decimal},
		{"ln(a)", "ln(CAST(a AS DOUBLE))", types.Float},
		{"ln(2.0)", "ln(2.0)", types.Decimal},
		{"exp(1.5)", "exp(1.5)", types.Decimal},
		{"log(0.5)", "log(0.5)", types.Decimal},
		{"power(2.5, a)", "power(2.5, CAST(a AS DECIMAL))", types.Decimal},
		{"power(a, 0.5)", "power(CAST(a AS DECIMAL), 0.5)", types.Decimal},
		{"power(2.5, f)", "power(2.5, f)", types.Float},
		// Time.
		{"EXTRACT(HOUR FROM ts)", "extract('hour', ts)", types.Int},
		{"EXTRACT(SECOND FROM ts)", "extract('second', ts)", types.Float},
		{"date_part('epoch', ts)", "extract('epoch', ts)", types.Float},
		{"date_part('dow', ts)", "extract('dow', ts)", types.Int},
		{"date_trunc('minute', ts)", "date_trunc('minute', ts)", types.Timestamp},
		{"date_trunc('hours', ts)", "date_trunc('hour', ts)", types.Timestamp},
		{"to_timestamp(a)", "to_timestamp(CAST(a AS DOUBLE))", types.Timestamp},
		{"now()", "now()", types.TimestampTZ}, // as in Postgres
		{"current_timestamp", "now()", types.TimestampTZ},
		{"localtimestamp", "CAST(now() AS TIMESTAMP)", types.Timestamp},
		{"proctime()", "proctime()", types.TimestampTZ},
		// Aggregates are the scope's.
		{"count(*)", "count(1)", types.Int},
		{"max(a) + 1", "(max(a) + 1)", types.Int},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := bindExpr(t, tt.expr, nil)
			if err != nil {
				t.Fatalf("bind: %v", err)
			}
			if got := s.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
			if s.Type() != tt.kind {
				t.Errorf("Type() = %v, want %v", s.Type(), tt.kind)
			}
		})
	}
}

func TestBindScalarColumnIndex(t *testing.T) {
	s, err := bindExpr(t, "t.ts", nil)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := s.(*ColRef)
	if !ok || c.Index != 4 || c.T != types.Timestamp {
		t.Fatalf("got %#v", s)
	}
	s, err = bindExpr(t, "ts > '2024-01-01 00:00:05'", nil)
	if err != nil {
		t.Fatal(err)
	}
	lit := s.(*Call).Args[1].(*Const)
	if lit.V.K != types.Timestamp || lit.V.I != 1704067205000000 {
		t.Fatalf("literal not coerced: %#v", lit.V)
	}
}

func TestBindScalarErrors(t *testing.T) {
	tests := []struct {
		expr string
		code string
		msg  string
	}{
		{"nope", sqlerr.UndefinedColumn, `column "nope"`},
		{"x.a", sqlerr.UndefinedTable, `"x"`},
		{"foo(a)", sqlerr.UndefinedFunction, "function foo does not exist"},
		{"lower(a)", sqlerr.UndefinedFunction, "function lower(bigint) does not exist"},
		{"a + s", sqlerr.UndefinedFunction, "operator does not exist: bigint + varchar"},
		{"a = s", sqlerr.UndefinedFunction, "operator does not exist: bigint = varchar"},
		{"ts + 1", sqlerr.UndefinedFunction, "operator does not exist: timestamp + bigint"},
		{"ts > 'yesterday'", sqlerr.InvalidDatetime, "invalid input syntax for type timestamp"},
		{"a = 'x'", "22P02", "invalid input syntax for type bigint"},
		{"a AND ok", sqlerr.DatatypeMismatch, "argument of AND must be type boolean, not type bigint"},
		{"NOT s", sqlerr.DatatypeMismatch, "argument of NOT must be type boolean"},
		{"CASE WHEN a THEN 1 END", sqlerr.DatatypeMismatch, "CASE/WHEN must be type boolean"},
		{"CASE WHEN ok THEN 1 ELSE 'x' END", "22P02", "invalid input syntax for type bigint"},
		{"CASE WHEN ok THEN 1 ELSE s END", sqlerr.DatatypeMismatch, "CASE types bigint and varchar cannot be matched"},
		{"coalesce(a, s)", sqlerr.DatatypeMismatch, "COALESCE types bigint and varchar cannot be matched"},
		{"a IN (1, s)", sqlerr.DatatypeMismatch, "IN types bigint and varchar cannot be matched"},
		{"ts LIKE 'x'", sqlerr.UndefinedFunction, "operator does not exist: timestamp LIKE varchar"},
		{"CAST(ts AS SIGNED)", "42846", "cannot cast type timestamp to bigint"},
		{"CAST('x' AS DATETIME)", sqlerr.InvalidDatetime, "timestamp"},
		{"CAST(a AS JSON)", "42846", "cannot cast type bigint to jsonb"},
		{"CAST(a AS YEAR)", sqlerr.FeatureNotSupport, "cast to"},
		{"ts + INTERVAL 1 YEAR_MONTH", sqlerr.FeatureNotSupport, "interval unit YEAR_MONTH"},
		{"ts + INTERVAL 'x' SECOND", sqlerr.InvalidDatetime, "invalid input syntax for type interval"},
		{"ts + INTERVAL a SECOND", sqlerr.FeatureNotSupport, "interval value must be a constant"},
		{"date_trunc('fortnight', ts)", sqlerr.InvalidParameter, "unit 'fortnight' not supported"},
		{"date_trunc(s, ts)", sqlerr.FeatureNotSupport, "constant string"},
		{"EXTRACT(DAY_HOUR FROM ts)", sqlerr.FeatureNotSupport, "EXTRACT unit"},
		{"row_number() OVER ()", sqlerr.FeatureNotSupport, "window functions"},
		{"a IN (SELECT 1)", sqlerr.FeatureNotSupport, "subquery test outside a WHERE clause"},
		{"a & 1", sqlerr.FeatureNotSupport, "operator"},
		{"a DIV f", sqlerr.UndefinedFunction, "operator does not exist: bigint DIV double"},
		{"-s", sqlerr.UndefinedFunction, "operator does not exist: - varchar"},
		{"if(a, 1, 2)", sqlerr.DatatypeMismatch, "argument of IF"},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			s, err := bindExpr(t, tt.expr, nil)
			if err == nil {
				t.Fatalf("bind succeeded: %s", s)
			}
			if got := sqlerr.Code(err); got != tt.code {
				t.Errorf("code = %s, want %s (%v)", got, tt.code, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func TestBindScalarAggregateNotAllowed(t *testing.T) {
	_, err := bindExpr(t, "sum(a) > 1", &testScope{schema: testSchema, noAggs: true})
	if sqlerr.Code(err) != sqlerr.GroupingError {
		t.Fatalf("got %v, want 42803", err)
	}
}

func TestBindScalarMessageNamesExpression(t *testing.T) {
	_, err := bindExpr(t, "a + s > 1", nil)
	if err == nil || !strings.Contains(err.Error(), "a + s") {
		t.Fatalf("error %v does not name the expression", err)
	}
}

func TestIntervalLiteral(t *testing.T) {
	fc := parseExpr(t, "ts - INTERVAL '2.5' MINUTE").(*ast.FuncCallExpr)
	us, err := IntervalLiteral(fc.Args[1], fc.Args[2].(*ast.TimeUnitExpr).Unit)
	if err != nil || us != 150*types.Second {
		t.Fatalf("got %d, %v", us, err)
	}
}

func TestFuncTable(t *testing.T) {
	for _, n := range funcs.Names() {
		f, ok := funcs.Lookup(n)
		if !ok || f.Name != n || len(f.Sigs) == 0 {
			t.Errorf("function %q badly registered", n)
		}
	}
	for alias, canon := range funcs.Aliases() {
		if f, ok := funcs.Lookup(alias); !ok || f.Name != canon {
			t.Errorf("alias %q does not resolve to %q", alias, canon)
		}
	}
	if !CanCast(types.String, types.Timestamp) || CanCast(types.Timestamp, types.Int) {
		t.Error("CanCast matrix wrong")
	}
}
