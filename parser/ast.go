package parser

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Stmt is one parsed statement of a script. The set is closed: the types in
// this file are all of it. Statements are pure data (no runtime state).
type Stmt interface {
	// Text is the statement's original text, as the user wrote it.
	Text() string
	// Pos is where the statement starts in the script.
	Pos() sqlerr.Pos
	// Restore renders the statement back to SQL that parses to the same tree.
	Restore() string
	stmt()
}

// StmtBase carries what every statement has: its text and position.
type StmtBase struct {
	SQL   string
	Start sqlerr.Pos
}

// Text implements Stmt.
func (b *StmtBase) Text() string { return b.SQL }

// Pos implements Stmt.
func (b *StmtBase) Pos() sqlerr.Pos { return b.Start }

// Option is one `name = 'value'` entry of a WITH (...) list. Names are
// lower-cased; values are the literal text without quotes.
type Option struct {
	Name  string
	Value string
	Pos   sqlerr.Pos
}

// GeneratedKind says how a column's value is produced when it is not read
// from the input.
type GeneratedKind uint8

// Generated column kinds.
const (
	NotGenerated  GeneratedKind = iota
	IngestionTime               // col TIMESTAMP AS INGESTION_TIME()
	ProcTime                    // col AS PROCTIME()
	Computed                    // col type AS (expression over the other columns)
)

// ColumnDef is one column of CREATE SOURCE / CREATE TABLE.
type ColumnDef struct {
	Name string
	Type types.Kind
	// Precision and Scale are a DECIMAL(p, s)'s; 0, 0 for a bare DECIMAL.
	Precision, Scale int
	PrimaryKey       bool
	Generated        GeneratedKind
	// Expr is a Computed column's expression, as `SELECT expr` (the
	// planner binds its one field); ExprText its canonical text.
	Expr     *QueryStmt
	ExprText string
	Pos      sqlerr.Pos
}

// WatermarkClause is `WATERMARK FOR col AS col - INTERVAL ...`: bounded
// out-of-orderness with Delay microseconds.
type WatermarkClause struct {
	Column string
	Delay  int64
	Pos    sqlerr.Pos
}

// CreateSourceStmt is CREATE SOURCE (append-only stream) or, with IsTable,
// CREATE TABLE (a keyed, updatable relation).
type CreateSourceStmt struct {
	StmtBase
	IsTable     bool
	IfNotExists bool
	Name        string
	Columns     []ColumnDef
	PrimaryKey  []string // from column or table-level PRIMARY KEY
	Watermark   *WatermarkClause
	Options     []Option
}

// WindowKind is the kind of a window table-valued function.
type WindowKind uint8

// Window kinds.
const (
	Tumble WindowKind = iota + 1
	Hop
	Session
)

// WindowTVFClause is a TUMBLE / HOP / SESSION call in a FROM clause. In the
// TiDB tree it was replaced by a table named Placeholder; the planner swaps
// it back. Intervals are microseconds.
type WindowTVFClause struct {
	Placeholder string
	Kind        WindowKind
	Source      string // the relation windowed (a source, table, view or CTE name)
	// Query is the windowed subquery of `TUMBLE((SELECT …), ts, …)`
	// (Source is "" then), with its own window placeholders.
	Query      *QueryStmt
	TimeColumn string
	Size       int64 // TUMBLE size, HOP size
	Slide      int64 // HOP slide
	Gap        int64 // SESSION gap
	Pos        sqlerr.Pos
	// Alias is the alias written after the call (`TUMBLE(...) AS t`), ""
	// when none. TiDB also has it as the AsName of the placeholder's
	// TableSource.
	Alias string
}

// LatePolicy is the LATE DATA policy of a view.
type LatePolicy uint8

// Late-data policies. LateUnset means the view has no LATE DATA clause.
const (
	LateUnset LatePolicy = iota
	LateDrop
	LateUpdate
	LateSideOutput
	LateUpdateSideOutput
)

// LateDataClause is `LATE DATA { DROP | UPDATE | SIDE OUTPUT t | UPDATE SIDE OUTPUT t }`.
type LateDataClause struct {
	Policy    LatePolicy
	SideTable string
}

// EmitMode is the EMIT mode of a view.
type EmitMode uint8

// Emit modes. EmitUnset means no EMIT clause.
const (
	EmitUnset EmitMode = iota
	EmitOnWindowClose
	EmitOnUpdate
	EmitEvery
)

// EmitClause is `EMIT { ON WINDOW CLOSE | ON UPDATE | EVERY interval }`.
type EmitClause struct {
	Mode  EmitMode
	Every int64 // microseconds, for EmitEvery
}

// StreamingClauses are the clauses after a view's query.
type StreamingClauses struct {
	AllowedLateness *int64 // microseconds; nil when absent
	LateData        *LateDataClause
	Emit            *EmitClause
	StateTTL        *int64 // microseconds; nil when absent
}

// QueryStmt is a SELECT (or UNION) as TiDB parsed it, with window TVFs
// replaced by placeholder tables listed in Windows.
type QueryStmt struct {
	StmtBase
	Select  ast.ResultSetNode
	Windows []*WindowTVFClause
}

// Window returns the window whose placeholder table is named name
// (case-insensitive), or nil: the planner calls it for each TableName.
func (s *QueryStmt) Window(name string) *WindowTVFClause {
	for _, w := range s.Windows {
		if strings.EqualFold(w.Placeholder, name) {
			return w
		}
	}
	return nil
}

// CreateViewStmt is CREATE MATERIALIZED VIEW name AS query [streaming clauses].
type CreateViewStmt struct {
	StmtBase
	IfNotExists bool
	Name        string
	Query       *QueryStmt
	Streaming   StreamingClauses
}

// CreatePlainViewStmt is CREATE VIEW name AS query: a view that is not
// materialized. The catalog keeps its text; the planner inlines its query
// wherever the name is read, like a subquery.
type CreatePlainViewStmt struct {
	StmtBase
	IfNotExists bool
	Name        string
	Query       *QueryStmt
}

// CreateSinkStmt is CREATE SINK name FROM view WITH (...), or CREATE SINK
// name AS query [streaming clauses] WITH (...): a pipeline that delivers
// its changes without keeping a queryable view (RisingWave's form).
type CreateSinkStmt struct {
	StmtBase
	IfNotExists bool
	Name        string
	From        string     // the view read; "" when Query is set
	Query       *QueryStmt // the query delivered; nil when From is set
	Streaming   StreamingClauses
	Options     []Option
}

// InsertStmt is INSERT INTO t [PARTITION (p)] [(cols)] VALUES (...), ...
// or INSERT INTO t [PARTITION (p)] [(cols)] query.
type InsertStmt struct {
	StmtBase
	Table     string
	Partition string // "" when absent
	Columns   []string
	Rows      [][]ast.ExprNode
	Query     *QueryStmt // the SELECT whose rows are inserted; nil for VALUES
}

// DeleteStmt is DELETE FROM t [WHERE cond].
type DeleteStmt struct {
	StmtBase
	Table string
	Where ast.ExprNode // nil: every row
}

// UpdateStmt is UPDATE t SET col = expr, ... [WHERE cond].
type UpdateStmt struct {
	StmtBase
	Table   string
	Columns []string
	Values  []ast.ExprNode // one per column of Columns
	Where   ast.ExprNode   // nil: every row
}

// FuncParam is one parameter of CREATE FUNCTION: Name is "" for an
// unnamed one (the body reads it as $n).
type FuncParam struct {
	Name string
	Type types.Column // Name unused; Type, Precision and Scale
	Pos  sqlerr.Pos
}

// CreateFunctionStmt is CREATE [OR REPLACE] FUNCTION name(params) RETURNS
// type [LANGUAGE SQL] [IMMUTABLE] { AS $$ SELECT expr $$ | RETURN expr }:
// a scalar SQL function the binder inlines.
type CreateFunctionStmt struct {
	StmtBase
	OrReplace bool
	Name      string
	Params    []FuncParam
	Returns   types.Column
	// Body is the function's expression as the query `SELECT expr` (its
	// one field is the body); BodyText its canonical text.
	Body     *QueryStmt
	BodyText string
	BodyPos  sqlerr.Pos
}

// DropFunctionStmt is DROP FUNCTION [IF EXISTS] name [(types)].
type DropFunctionStmt struct {
	StmtBase
	IfExists bool
	Name     string
	// Args are the argument types written, nil when there is no list.
	Args []types.Column
}

// ObjectKind names a catalog object kind in DROP and SHOW.
type ObjectKind uint8

// Object kinds.
const (
	ObjSource ObjectKind = iota + 1
	ObjTable
	ObjView
	ObjSink
	ObjPlainView // VIEW: a view that is not materialized
)

// DropStmt is DROP {SOURCE|TABLE|MATERIALIZED VIEW|SINK} [IF EXISTS] name.
type DropStmt struct {
	StmtBase
	Kind     ObjectKind
	IfExists bool
	Name     string
}

// ShowStmt is SHOW {SOURCES|TABLES|MATERIALIZED VIEWS|SINKS} or SHOW name
// (a setting).
type ShowStmt struct {
	StmtBase
	Kind    ObjectKind // 0 when showing a setting
	Setting string
}

// DescribeStmt is DESCRIBE name.
type DescribeStmt struct {
	StmtBase
	Name string
}

// ExplainStmt is EXPLAIN stmt, EXPLAIN ANALYZE stmt, or EXPLAIN ANALYZE
// name (View: the running view's plan with its live figures).
type ExplainStmt struct {
	StmtBase
	Stmt    Stmt // nil when View is set
	Analyze bool
	View    string
}

// FlushStmt is FLUSH.
type FlushStmt struct{ StmtBase }

// SetStmt is SET name = value (also SET name TO value).
type SetStmt struct {
	StmtBase
	Name  string
	Value string
}

func (*CreateSourceStmt) stmt()    {}
func (*CreateViewStmt) stmt()      {}
func (*CreateSinkStmt) stmt()      {}
func (*CreatePlainViewStmt) stmt() {}
func (*QueryStmt) stmt()           {}
func (*InsertStmt) stmt()          {}
func (*DeleteStmt) stmt()          {}
func (*UpdateStmt) stmt()          {}
func (*DropStmt) stmt()            {}
func (*ShowStmt) stmt()            {}
func (*DescribeStmt) stmt()        {}
func (*ExplainStmt) stmt()         {}
func (*FlushStmt) stmt()           {}
func (*SetStmt) stmt()             {}
func (*CreateFunctionStmt) stmt()  {}
func (*DropFunctionStmt) stmt()    {}
