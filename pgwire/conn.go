package pgwire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamsql/streamsql/types"
)

// session is one client connection: its protocol state (prepared
// statements, portals, the skip-to-Sync flag), its parameters and the
// cancel function of the statement it runs.
type session struct {
	srv    *Server
	conn   net.Conn
	be     *pgproto3.Backend
	pid    uint32
	secret uint32

	user, database string
	params         map[string]string
	tlsOn          bool
	// engineSettings are this session's SET strict, parallelism, ... (the
	// engine reads and writes them under its lock; engine.WithSession).
	engineSettings map[string]string

	stmts   map[string]*prepared
	portals map[string]*portal
	cursors map[string]*cursor
	skip    bool // an extended-protocol error: ignore messages until Sync
	// pendingStatus lists parameters a SET changed: ParameterStatus
	// follows the statement's CommandComplete.
	pendingStatus []string

	mu      sync.Mutex
	running context.CancelFunc
	killed  bool
}

func newSession(srv *Server, c net.Conn) *session {
	s := &session{srv: srv, conn: c, params: map[string]string{}, engineSettings: map[string]string{}, stmts: map[string]*prepared{}, portals: map[string]*portal{}, cursors: map[string]*cursor{}}
	for k, p := range sessionParams {
		s.params[k] = p.def
	}
	s.newBackend(c)
	return s
}

func (s *session) newBackend(c net.Conn) {
	s.conn = c
	s.be = pgproto3.NewBackend(c, c)
	s.be.SetMaxBodyLen(s.srv.cfg.MaxMessageSize)
}

// kill closes the connection (server shutdown) and cancels its statement.
func (s *session) kill() {
	s.mu.Lock()
	s.killed = true
	if s.running != nil {
		s.running()
	}
	s.mu.Unlock()
	_ = s.conn.Close()
}

func (s *session) cancelRunning() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running != nil {
		s.running()
	}
}

func (s *session) cleanup() {
	s.srv.unregister(s)
	for _, c := range s.cursors {
		c.close()
	}
	for name := range s.portals {
		s.dropPortal(name)
	}
}

// run is the session's life: startup, then the message loop.
func (s *session) run() error {
	_ = s.conn.SetDeadline(time.Now().Add(s.srv.cfg.StartupTimeout))
	ok, err := s.startup()
	if err != nil || !ok {
		return err
	}
	_ = s.conn.SetDeadline(time.Time{})
	for {
		msg, err := s.be.Receive()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
				return nil
			}
			// A malformed or oversized message: the stream cannot be
			// resynchronised, so the connection ends (the server lives on).
			s.be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", Code: "08P01", Message: "invalid frontend message: " + err.Error()})
			_ = s.be.Flush()
			return err
		}
		if _, ok := msg.(*pgproto3.Terminate); ok {
			return nil
		}
		if err := s.handle(msg); err != nil {
			return err
		}
	}
}

// startup answers SSLRequest/GSSEncRequest, serves a CancelRequest, and
// for a StartupMessage authenticates and sends the session's parameters.
// ok is false when the connection ends without a session (a cancel).
func (s *session) startup() (bool, error) {
	for {
		msg, err := s.be.ReceiveStartupMessage()
		if err != nil {
			return false, fmt.Errorf("startup: %w", err)
		}
		switch m := msg.(type) {
		case *pgproto3.SSLRequest:
			if s.srv.cfg.TLS == nil || s.tlsOn {
				if _, err := s.conn.Write([]byte{'N'}); err != nil {
					return false, err
				}
				continue
			}
			if _, err := s.conn.Write([]byte{'S'}); err != nil {
				return false, err
			}
			tc := tls.Server(s.conn, s.srv.cfg.TLS)
			if err := tc.Handshake(); err != nil {
				return false, fmt.Errorf("tls handshake: %w", err)
			}
			s.tlsOn = true
			s.newBackend(tc)
		case *pgproto3.GSSEncRequest:
			if _, err := s.conn.Write([]byte{'N'}); err != nil {
				return false, err
			}
		case *pgproto3.CancelRequest:
			s.srv.cancel(m.ProcessID, m.SecretKey)
			return false, nil
		case *pgproto3.StartupMessage:
			return s.begin(m)
		default:
			return false, fmt.Errorf("startup: unexpected %T", msg)
		}
	}
}

func (s *session) begin(m *pgproto3.StartupMessage) (bool, error) {
	s.user = m.Parameters["user"]
	s.database = m.Parameters["database"]
	if s.database == "" {
		s.database = s.user
	}
	if s.user == "" {
		s.fatal("28000", "no PostgreSQL user name specified in startup packet")
		return false, errors.New("startup without a user")
	}
	if err := s.authenticate(); err != nil {
		return false, err
	}
	if !s.srv.register(s) {
		s.fatal("57P01", "terminating connection due to administrator command")
		return false, nil
	}
	s.params["session_authorization"] = s.user
	for k, v := range m.Parameters {
		k = strings.ToLower(k)
		if p, ok := sessionParams[k]; ok && !p.fixed {
			s.params[k] = v
		}
	}
	if z := types.ZoneName(s.params["timezone"]); z != "" { // a client's TimeZone option, when it names a zone
		s.setZone(z)
	} else {
		s.setZone("UTC")
	}
	if s.params["application_name"] == "" {
		s.params["application_name"] = m.Parameters["application_name"]
	}
	s.be.Send(&pgproto3.AuthenticationOk{})
	for _, p := range sessionParams {
		if p.report {
			s.be.Send(&pgproto3.ParameterStatus{Name: p.name, Value: s.params[strings.ToLower(p.name)]})
		}
	}
	s.be.Send(&pgproto3.BackendKeyData{ProcessID: s.pid, SecretKey: []byte{byte(s.secret >> 24), byte(s.secret >> 16), byte(s.secret >> 8), byte(s.secret)}})
	s.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
	s.srv.cfg.Logger.Debug("pgwire: connection authorized", s.logAttrs("application_name", s.params["application_name"])...)
	return true, s.be.Flush()
}

// logAttrs are the fields of s's log records: the client's address, the
// user and database (once its startup named them), then more.
func (s *session) logAttrs(more ...any) []any {
	attrs := []any{"remote_addr", s.conn.RemoteAddr().String()}
	if s.user != "" {
		attrs = append(attrs, "user", s.user, "database", s.database)
	}
	return append(attrs, more...)
}

// fatal sends a FATAL error (the connection ends after it).
func (s *session) fatal(code, msg string) {
	s.be.Send(&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: code, Message: msg})
	_ = s.be.Flush()
}

// handle processes one message after startup. Only I/O errors and
// protocol violations end the session; SQL errors are answered.
func (s *session) handle(msg pgproto3.FrontendMessage) error {
	if s.skip {
		switch msg.(type) {
		case *pgproto3.Sync:
			s.skip = false
		default:
			return nil
		}
	}
	switch m := msg.(type) {
	case *pgproto3.Query:
		s.simpleQuery(m.String)
		s.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		return s.be.Flush()
	case *pgproto3.Parse:
		s.extended(s.parse(m))
	case *pgproto3.Bind:
		s.extended(s.bind(m))
	case *pgproto3.Describe:
		s.extended(s.describe(m))
	case *pgproto3.Execute:
		s.extended(s.execute(m))
	case *pgproto3.Close:
		s.extended(s.close(m))
	case *pgproto3.Sync:
		// The unnamed portal does not outlive the implicit transaction.
		s.dropPortal("")
		s.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		return s.be.Flush()
	case *pgproto3.Flush:
		return s.be.Flush()
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Not in a COPY: ignored, as Postgres does.
	case *pgproto3.FunctionCall:
		s.sendError(errNotSupported("the function call protocol"), "", 0)
		s.be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		return s.be.Flush()
	default:
		return fmt.Errorf("unexpected message %T", msg)
	}
	return nil
}

// extended reports an extended-protocol error and skips to Sync.
func (s *session) extended(err error) {
	if err == nil {
		return
	}
	var se *stmtError
	if errors.As(err, &se) {
		s.sendError(err, se.sql, 0)
	} else {
		s.sendError(err, "", 0)
	}
	s.skip = true
}

// simpleQuery runs every statement of a Query message; an error ends the
// query (later statements do not run).
func (s *session) simpleQuery(q string) {
	pieces := splitStatements(q)
	if len(pieces) == 0 {
		s.be.Send(&pgproto3.EmptyQueryResponse{})
		return
	}
	for _, p := range pieces {
		st := s.prepare(context.Background(), p.text, nil, false)
		if st.kind == kindCopy {
			if err := s.copy(st.sql); err != nil {
				s.sendError(err, q, p.off)
				return
			}
			continue
		}
		res, err := s.runStmt(st, nil, nil)
		if err != nil {
			s.sendError(err, q, p.off)
			return
		}
		if res.stream != nil {
			err = s.streamRows(res, nil, true)
			if err != nil {
				s.sendError(err, q, p.off)
			}
			return
		}
		s.sendNotices(res)
		s.flushStatus()
		if res.cols != nil {
			s.be.Send(rowDescription(res.cols, nil))
		}
		s.sendRows(res, nil, 0, len(res.rows))
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(res.commandTag())})
	}
}

// flushStatus sends ParameterStatus for parameters a SET changed.
func (s *session) flushStatus() {
	for _, n := range s.pendingStatus {
		s.be.Send(&pgproto3.ParameterStatus{Name: canonical(n), Value: s.params[n]})
	}
	s.pendingStatus = nil
}

func (s *session) sendNotices(res *result) {
	for _, n := range res.notices {
		s.be.Send(&pgproto3.NoticeResponse{Severity: "NOTICE", SeverityUnlocalized: "NOTICE", Code: "00000", Message: n})
	}
	res.notices = nil
}

// sendRows sends rows [from, to) of res as DataRows in the given formats,
// flushing now and then so a large result streams.
func (s *session) sendRows(res *result, formats []int16, from, to int) {
	var buf []byte
	loc := s.zone()
	n := len(res.cols)
	vals := make([][]byte, n)
	ends := make([]int, n)
	for i := from; i < to; i++ {
		buf = buf[:0]
		row := res.rows[i]
		for j, c := range res.cols {
			switch {
			case j >= len(row) || row[j].IsNull():
				ends[j] = -1
				continue
			case formatOf(formats, j) == 1:
				buf = appendBinary(buf, c.oid, row[j])
			default:
				buf = appendText(buf, c.oid, row[j], loc)
			}
			ends[j] = len(buf)
		}
		start := 0
		for j := range vals {
			if ends[j] < 0 {
				vals[j] = nil
				continue
			}
			vals[j] = buf[start:ends[j]:ends[j]]
			start = ends[j]
		}
		s.be.Send(&pgproto3.DataRow{Values: vals})
		if (i-from)%512 == 511 {
			_ = s.be.Flush()
		}
	}
}

// formatOf returns the format code of column j: none means text, one
// applies to every column.
func formatOf(formats []int16, j int) int16 {
	switch {
	case len(formats) == 0:
		return 0
	case len(formats) == 1:
		return formats[0]
	case j < len(formats):
		return formats[j]
	}
	return 0
}

func rowDescription(cols []column, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, c := range cols {
		rd.Fields[i] = pgproto3.FieldDescription{
			Name:         []byte(c.name),
			DataTypeOID:  c.oid,
			DataTypeSize: typeSize(c.oid),
			TypeModifier: -1,
			Format:       formatOf(formats, i),
		}
	}
	return rd
}

// column is one result column as the client sees it.
type column struct {
	name string
	oid  uint32
}

// result is a statement's answer: columns (nil: no rows), rows, the
// command tag and notices; stream is set for SUBSCRIBE.
type result struct {
	cols    []column
	rows    []types.Row
	tag     string
	notices []string
	stream  *subscription
}

func (r *result) commandTag() string {
	if r.tag != "" && r.tag != "SHOW" {
		return r.tag
	}
	if r.cols != nil {
		if r.tag == "SHOW" {
			return "SHOW"
		}
		return fmt.Sprintf("SELECT %d", len(r.rows))
	}
	return "OK"
}

func columnsOf(s types.Schema) []column {
	cols := make([]column, len(s))
	for i, c := range s {
		cols[i] = column{name: c.Name, oid: types.OIDOf(c.Type)}
	}
	return cols
}
