package pgwire

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/pgwire/pgcatalog"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// stmtKind says who answers a statement.
type stmtKind uint8

const (
	kindEngine      stmtKind = iota // the engine (DDL, INSERT, SELECT, FLUSH, EXPLAIN, SHOW SOURCES, ...)
	kindCatalog                     // maybe pgcatalog (pg_catalog, information_schema, functions); else the engine
	kindSession                     // SET/SHOW/RESET of session parameters, transaction statements
	kindSubscribe                   // SUBSCRIBE TO view
	kindDeclare                     // DECLARE c CURSOR FOR SUBSCRIBE ...
	kindFetch                       // FETCH n FROM c
	kindCloseCursor                 // CLOSE c
	kindEmpty                       // only blanks and comments
	kindCopy                        // COPY ... FROM STDIN / TO STDOUT (copy.go)
)

// prepared is a statement: from Parse, or one statement of a simple
// query. A Parse of a statement the engine answers also holds the
// engine's prepared statement (parsed once, its point-lookup plan if it
// is a point read), or the error preparing it gave, which Describe and
// Execute report.
type prepared struct {
	sql       string
	kind      stmtKind
	paramOIDs []uint32
	prep      *engine.Prepared
	prepErr   error
	extended  bool // from Parse: the engine answers it through prep
}

// classify decides who answers sql, from its first words.
func classify(sql string) stmtKind {
	w := words(sql, 3)
	if len(w) == 0 {
		return kindEmpty
	}
	switch w[0] {
	case "begin", "start", "commit", "end", "rollback", "abort", "savepoint", "release", "discard", "reset",
		"listen", "unlisten", "deallocate":
		return kindSession
	case "set":
		if len(w) > 1 && engineSettings[strings.Trim(w[1], `"`)] {
			return kindEngine
		}
		return kindSession
	case "show":
		if len(w) > 1 {
			switch strings.Trim(w[1], `"`) {
			case "sources", "tables", "materialized", "sinks", "views", "pipelines":
				return kindEngine
			}
			if engineSettings[strings.Trim(w[1], `"`)] {
				return kindEngine
			}
		}
		return kindSession
	case "subscribe":
		return kindSubscribe
	case "copy":
		return kindCopy
	case "declare":
		return kindDeclare
	case "fetch":
		return kindFetch
	case "close":
		return kindCloseCursor
	case "select", "with", "table", "values":
		if reCancelBackend.MatchString(sql) {
			return kindSession
		}
		if pgcatalog.Handles(sql) {
			return kindCatalog
		}
	}
	return kindEngine
}

// prepare builds the statement for sql; oids are the parameter types the
// client gave (0: unspecified: the engine infers them from where the
// parameter stands, else text). A Parse (reused) of a statement the
// engine answers prepares it in the engine once (engine.Prepare); one
// that pgcatalog may answer is prepared then only when it has
// parameters (to type them), else when pgcatalog declines it
// (enginePrepared). A simple query's statement runs once, through Exec,
// which finds point reads among those itself.
func (s *session) prepare(ctx context.Context, sql string, oids []uint32, reused bool) *prepared {
	st := &prepared{sql: sql, kind: classify(sql), extended: reused}
	n := max(len(oids), maxParam(sql))
	if reused && (st.kind == kindEngine || st.kind == kindCatalog && n > 0) {
		st.prep, st.prepErr = s.srv.cfg.Engine.Prepare(ctx, sql)
	}
	if st.prep != nil {
		n = max(n, st.prep.NumParams())
	}
	if n == 0 {
		return st
	}
	st.paramOIDs = make([]uint32, n)
	copy(st.paramOIDs, oids)
	if st.kind == kindSession && reCancelBackend.MatchString(sql) && st.paramOIDs[0] == 0 {
		st.paramOIDs[0] = types.OIDInt4 // pg_cancel_backend(integer)
	}
	for i, o := range st.paramOIDs {
		if o != 0 {
			continue
		}
		st.paramOIDs[i] = types.OIDText
		if st.prep != nil {
			if k, ok := st.prep.ParamKind(i + 1); ok {
				st.paramOIDs[i] = types.OIDOf(k)
			}
		}
	}
	return st
}

// statementContext returns the context a statement runs under: cancelled
// by a CancelRequest, by statement_timeout, or by server shutdown.
func (s *session) statementContext() (context.Context, func()) {
	ctx, cancel := context.WithCancel(engine.WithSession(s.srv.ctx, s.engineSettings))
	if d := parseTimeout(s.params["statement_timeout"]); d > 0 {
		var c2 context.CancelFunc
		ctx, c2 = context.WithTimeout(ctx, d)
		c1 := cancel
		cancel = func() { c2(); c1() }
	}
	s.mu.Lock()
	s.running = cancel
	if s.killed {
		cancel()
	}
	s.mu.Unlock()
	return ctx, func() {
		s.mu.Lock()
		s.running = nil
		s.mu.Unlock()
		cancel()
	}
}

// parseTimeout reads statement_timeout: milliseconds, or a number with a
// unit (ms, s, min, h).
func parseTimeout(v string) time.Duration {
	v = strings.TrimSpace(strings.ToLower(v))
	if v == "" || v == "0" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(n) * time.Millisecond
	}
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	n, err := strconv.ParseFloat(strings.TrimSpace(v[:i]), 64)
	if err != nil {
		return 0
	}
	unit := map[string]time.Duration{"ms": time.Millisecond, "s": time.Second, "sec": time.Second, "min": time.Minute, "h": time.Hour}[strings.TrimSpace(v[i:])]
	return time.Duration(n * float64(unit))
}

// runStmt runs a statement with bound parameter values (params) and their
// text forms (for the catalog).
func (s *session) runStmt(st *prepared, params []types.Value, text []*string) (*result, error) {
	ctx, done := s.statementContext()
	defer done()
	res, err := s.runStmtCtx(ctx, st, params, text)
	if err != nil && ctx.Err() != nil && sqlerr.Code(err) == sqlerr.InternalError {
		return nil, ctx.Err()
	}
	if err != nil && ctx.Err() != nil && sqlerr.Code(err) == sqlerr.QueryCanceled && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, ctx.Err()
	}
	return res, err
}

func (s *session) runStmtCtx(ctx context.Context, st *prepared, params []types.Value, text []*string) (*result, error) {
	e := s.srv.cfg.Engine
	switch st.kind {
	case kindEmpty:
		return &result{tag: ""}, nil
	case kindSession:
		sql, _, err := bindText(st.sql, params)
		if err != nil {
			return nil, err
		}
		return s.sessionStmt(ctx, sql)
	case kindSubscribe:
		return s.subscribe(ctx, st.sql)
	case kindCopy:
		return nil, errExtendedCopy
	case kindDeclare:
		return s.declare(st.sql)
	case kindFetch:
		return s.fetch(ctx, st.sql)
	case kindCloseCursor:
		return s.closeCursor(st.sql)
	case kindCatalog:
		if res, ok, err := s.catalogAnswer(st.sql, text); ok || err != nil {
			return res, err
		}
	}
	s.enginePrepared(ctx, st)
	var r *engine.Result
	var err error
	switch {
	case st.prepErr != nil:
		err = st.prepErr
	case st.prep != nil:
		r, err = e.Execute(ctx, st.prep, params)
	case len(params) > 0:
		return nil, pgError(codeProtocolViolation, "parameters given to an unprepared statement")
	default:
		r, err = e.Exec(ctx, st.sql)
	}
	if err != nil {
		return nil, located(err, st.sql, sameOffset)
	}
	return engineResult(r), nil
}

// enginePrepared prepares a Parse's statement in the engine if that
// has not been done (a catalog query pgcatalog declined).
func (s *session) enginePrepared(ctx context.Context, st *prepared) {
	if st.extended && st.prep == nil && st.prepErr == nil {
		st.prep, st.prepErr = s.srv.cfg.Engine.Prepare(ctx, st.sql)
	}
}

// sameOffset maps an offset in a statement's text to itself: the engine
// ran that very text.
func sameOffset(off int) int { return off }

// stmtError is an error whose position is an offset into sql, a prepared
// statement's text: the extended protocol reports Position against it.
type stmtError struct {
	err error
	sql string
}

func (e *stmtError) Error() string { return e.err.Error() }
func (e *stmtError) Unwrap() error { return e.err }

// located maps a positioned engine error from the text the engine ran
// (a session statement's parameters substituted) back to the
// statement's text.
func located(err error, sql string, back func(int) int) error {
	var se *sqlerr.Error
	if !errors.As(err, &se) || !se.Pos.IsValid() {
		return err
	}
	c := *se
	c.Pos = sqlerr.PosAt(sql, back(se.Pos.Offset))
	return &stmtError{err: &c, sql: sql}
}

// bindText substitutes parameter values into sql as literals; back maps
// offsets in the result to offsets in sql.
func bindText(sql string, params []types.Value) (string, func(int) int, error) {
	if len(params) == 0 {
		return sql, func(off int) int { return off }, nil
	}
	lits := make([]string, len(params))
	for i, p := range params {
		l, err := literal(p)
		if err != nil {
			return "", nil, pgError(codeInvalidParamValue, err.Error())
		}
		lits[i] = l
	}
	out, back, err := substitute(sql, lits)
	if err != nil {
		return "", nil, pgError(codeUndefinedParam, err.Error())
	}
	return out, back, nil
}

func engineResult(r *engine.Result) *result {
	if r == nil {
		return &result{tag: "OK"}
	}
	res := &result{rows: r.Rows, tag: r.Tag, notices: r.Notice}
	if r.Schema != nil {
		res.cols = columnsOf(r.Schema)
	}
	return res
}

// describeStmt returns the columns st returns with params bound (nil
// params: unknown yet, NULL stands in), without running it where that
// matters; nil means no rows.
func (s *session) describeStmt(ctx context.Context, st *prepared, params []types.Value, text []*string) ([]column, error) {
	switch st.kind {
	case kindCopy:
		return nil, errExtendedCopy
	case kindEmpty, kindDeclare, kindCloseCursor:
		return nil, nil
	case kindSession:
		if m := reCancelBackend.FindStringSubmatch(st.sql); m != nil {
			return []column{{name: "pg_" + strings.ToLower(m[1]) + "_backend", oid: types.OIDBool}}, nil
		}
		if w := words(st.sql, 1); len(w) == 1 && w[0] == "show" {
			res, err := s.sessionStmt(context.Background(), st.sql)
			if err != nil {
				return nil, err
			}
			return res.cols, nil
		}
		return nil, nil
	case kindSubscribe:
		return s.subscribeColumns(st.sql)
	case kindFetch:
		return s.fetchColumns(st.sql)
	case kindCatalog:
		if res, ok, err := s.catalogAnswer(st.sql, text); ok || err != nil {
			if err != nil {
				return nil, err
			}
			return res.cols, nil
		}
	}
	s.enginePrepared(ctx, st)
	var sch types.Schema
	var err error
	switch {
	case st.prepErr != nil:
		err = st.prepErr
	case st.prep != nil:
		if params == nil {
			params = make([]types.Value, len(st.paramOIDs)) // NULLs
		}
		sch, err = s.srv.cfg.Engine.DescribePrepared(ctx, st.prep, params)
	default:
		sch, err = s.srv.cfg.Engine.Describe(ctx, st.sql)
	}
	if err != nil {
		if cols, ok := s.copyTargetColumns(ctx, st.sql); ok {
			return cols, nil
		}
		return nil, located(err, st.sql, sameOffset)
	}
	if sch == nil {
		return nil, nil
	}
	return columnsOf(sch), nil
}

// sessionStmt answers SET/SHOW/RESET of session parameters and the
// transaction statements (accepted as no-ops: every statement commits on
// its own).
func (s *session) sessionStmt(ctx context.Context, sql string) (*result, error) {
	w := words(sql, 3)
	switch w[0] {
	case "begin", "start":
		return &result{tag: "BEGIN"}, nil
	case "commit", "end":
		return &result{tag: "COMMIT"}, nil
	case "rollback", "abort":
		return &result{tag: "ROLLBACK"}, nil
	case "savepoint":
		return &result{tag: "SAVEPOINT"}, nil
	case "release":
		return &result{tag: "RELEASE"}, nil
	case "listen":
		return &result{tag: "LISTEN"}, nil
	case "unlisten":
		return &result{tag: "UNLISTEN"}, nil
	case "deallocate":
		if len(w) > 1 && w[1] == "all" {
			s.stmts = map[string]*prepared{}
		} else if len(w) > 1 {
			name := w[1]
			if name == "prepare" && len(w) > 2 {
				name = w[2]
			}
			delete(s.stmts, strings.Trim(name, `"`))
		}
		return &result{tag: "DEALLOCATE"}, nil
	case "discard":
		if len(w) > 1 && w[1] == "all" {
			s.stmts = map[string]*prepared{}
			for name := range s.portals {
				s.dropPortal(name)
			}
			s.resetAll()
			return &result{tag: "DISCARD ALL"}, nil
		}
		return &result{tag: "DISCARD"}, nil
	case "show":
		return s.show(ctx, sql)
	case "select":
		return s.cancelBackend(sql)
	}
	st, err := parseSet(sql)
	if err != nil {
		return nil, err
	}
	tag := "SET"
	if w[0] == "reset" {
		tag = "RESET"
	}
	switch {
	case st.all:
		s.resetAll()
	case st.name == "":
	case engineSettings[st.name]:
		return nil, pgError(sqlerr.FeatureNotSupport, "RESET of engine setting "+st.name+" is not supported; SET it")
	default:
		p, known := sessionParams[st.name]
		if !known && !customSetting(st.name) {
			return nil, errUnknownSetting(st.name)
		}
		if known && p.fixed {
			return nil, pgError("55P02", "parameter \""+p.name+"\" cannot be changed")
		}
		v := st.value
		if st.reset {
			v = p.def
		}
		if st.name == "statement_timeout" && v != "" && parseTimeout(v) == 0 && v != "0" {
			return nil, pgError(codeInvalidParamValue, "invalid value for parameter \"statement_timeout\": \""+v+"\"")
		}
		if st.name == "timezone" {
			z := types.ZoneName(v)
			if z == "" {
				return nil, pgError(codeInvalidParamValue, "invalid value for parameter \"TimeZone\": \""+v+"\"")
			}
			s.setZone(z)
			v = z
		}
		s.params[st.name] = v
		if known && p.report {
			s.sendStatus(st.name)
		}
	}
	return &result{tag: tag}, nil
}

// reCancelBackend matches SELECT pg_cancel_backend(pid) and
// pg_terminate_backend(pid).
var reCancelBackend = regexp.MustCompile(`(?is)^\s*select\s+(?:pg_catalog\.)?pg_(cancel|terminate)_backend\s*\(\s*'?(\d+|\$\d+)'?\s*\)\s*(?:as\s+\w+\s*)?;?\s*$`)

// cancelBackend cancels the statement of another session (as a
// CancelRequest would), or with pg_terminate_backend also closes it. Any
// user may: sessions are not isolated from each other (there is one user
// namespace). It returns whether a session with that process id exists.
func (s *session) cancelBackend(sql string) (*result, error) {
	m := reCancelBackend.FindStringSubmatch(sql)
	if m == nil {
		return nil, pgError(codeSyntax, "syntax error")
	}
	pid, err := strconv.ParseUint(m[2], 10, 32)
	if err != nil {
		return nil, pgError(codeInvalidParamValue, "invalid process id "+m[2])
	}
	found := s.srv.signal(uint32(pid), strings.EqualFold(m[1], "terminate"))
	name := "pg_" + strings.ToLower(m[1]) + "_backend"
	return &result{cols: []column{{name: name, oid: types.OIDBool}}, rows: []types.Row{{types.BoolValue(found)}}}, nil
}

func (s *session) sendStatus(name string) {
	s.pendingStatus = append(s.pendingStatus, name)
}

func (s *session) resetAll() {
	for k, p := range sessionParams {
		if !p.fixed && s.params[k] != p.def && k != "application_name" && k != "client_encoding" {
			s.params[k] = p.def
			if k == "timezone" {
				s.setZone(p.def)
			}
			if p.report {
				s.sendStatus(k)
			}
		}
	}
}

func (s *session) show(ctx context.Context, sql string) (*result, error) {
	rest := strings.TrimSpace(sql[len("show"):])
	rest = strings.TrimSpace(strings.TrimSuffix(rest, ";"))
	name := strings.ToLower(unquoteIdent(rest))
	switch name {
	case "all":
		vals := map[string]string{}
		for k := range engineSettings {
			if k == "metrics" {
				continue
			}
			if r, err := s.srv.cfg.Engine.Exec(ctx, "SHOW "+k); err == nil && len(r.Rows) == 1 {
				vals[k] = r.Rows[0][0].String()
			}
		}
		return s.showAll(vals), nil
	case "time zone":
		name = "timezone"
	case "transaction isolation level":
		name = "transaction_isolation"
	}
	v, ok := s.params[name]
	if !ok {
		return nil, errUnknownSetting(name)
	}
	return settingsResult(name, v), nil
}
