package pgwire

import (
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// portal is a bound statement: parameter values and result formats, and
// once executed its result and how far Execute has sent it.
type portal struct {
	stmt    *prepared
	params  []types.Value
	text    []*string
	formats []int16
	res     *result
	sent    int
	done    bool
	// feed is a SUBSCRIBE portal's subscription once an Execute with a
	// row limit started it (executeFeed).
	feed *cursor
}

// close ends the portal's subscription, if it has one.
func (p *portal) close() {
	if p.feed != nil {
		p.feed.close()
		p.feed = nil
	}
}

// dropPortal forgets a portal and ends its subscription.
func (s *session) dropPortal(name string) {
	if p, ok := s.portals[name]; ok {
		p.close()
		delete(s.portals, name)
	}
}

func (s *session) parse(m *pgproto3.Parse) error {
	if m.Name != "" {
		if _, ok := s.stmts[m.Name]; ok {
			return pgError(codeDuplicatePrepared, "prepared statement \""+m.Name+"\" already exists")
		}
	}
	if n := len(splitStatements(m.Query)); n > 1 {
		return pgError(codeSyntax, "cannot insert multiple commands into a prepared statement")
	}
	text := m.Query
	if ps := splitStatements(m.Query); len(ps) == 1 {
		text = ps[0].text
	}
	// Preparing may wait for the engine: a cancel or statement_timeout
	// ends the wait (the statement then runs without its shortcuts).
	ctx, done := s.statementContext()
	defer done()
	st := s.prepare(ctx, text, append([]uint32(nil), m.ParameterOIDs...), true)
	if st.kind == kindEngine && st.prepErr != nil {
		// As Postgres, a statement that does not parse fails its Parse
		// and is not created. A catalog query's error waits for Execute:
		// pgcatalog may answer what the engine cannot parse.
		return located(st.prepErr, st.sql, sameOffset)
	}
	s.stmts[m.Name] = st
	s.be.Send(&pgproto3.ParseComplete{})
	return nil
}

func (s *session) bind(m *pgproto3.Bind) error {
	st, ok := s.stmts[m.PreparedStatement]
	if !ok {
		return pgError(codeInvalidStatement, "prepared statement \""+m.PreparedStatement+"\" does not exist")
	}
	if m.DestinationPortal != "" {
		if _, ok := s.portals[m.DestinationPortal]; ok {
			return pgError(codeDuplicateCursor, "portal \""+m.DestinationPortal+"\" already exists")
		}
	}
	if len(m.Parameters) != len(st.paramOIDs) {
		return pgError(codeProtocolViolation, "bind message supplies "+itoa(len(m.Parameters))+" parameters, but prepared statement \""+m.PreparedStatement+"\" requires "+itoa(len(st.paramOIDs)))
	}
	if n := len(m.ParameterFormatCodes); n > 1 && n != len(m.Parameters) {
		return pgError(codeProtocolViolation, "bind message has "+itoa(n)+" parameter formats but "+itoa(len(m.Parameters))+" parameters")
	}
	p := &portal{stmt: st, formats: append([]int16(nil), m.ResultFormatCodes...)}
	p.params = make([]types.Value, len(m.Parameters))
	p.text = make([]*string, len(m.Parameters))
	for i, b := range m.Parameters {
		f := formatOf(m.ParameterFormatCodes, i)
		v, err := decodeParam(st.paramOIDs[i], f, b)
		if err != nil {
			return &sqlerr.Error{Code: codeInvalidTextRepr, Msg: "parameter $" + itoa(i+1), Err: err}
		}
		p.params[i] = v
		if b != nil {
			var t string
			if f == 0 {
				t = string(b)
			} else {
				t = string(appendText(nil, st.paramOIDs[i], v, s.zone()))
			}
			p.text[i] = &t
		}
	}
	s.dropPortal(m.DestinationPortal) // the unnamed portal is replaced
	s.portals[m.DestinationPortal] = p
	s.be.Send(&pgproto3.BindComplete{})
	return nil
}

func (s *session) describe(m *pgproto3.Describe) error {
	ctx, done := s.statementContext()
	defer done()
	switch m.ObjectType {
	case 'S':
		st, ok := s.stmts[m.Name]
		if !ok {
			return pgError(codeInvalidStatement, "prepared statement \""+m.Name+"\" does not exist")
		}
		cols, err := s.describeStmt(ctx, st, nil, nil)
		if err != nil {
			return err
		}
		s.be.Send(&pgproto3.ParameterDescription{ParameterOIDs: st.paramOIDs})
		s.sendDescription(cols, nil)
	case 'P':
		p, ok := s.portals[m.Name]
		if !ok {
			return pgError(codeInvalidCursor, "portal \""+m.Name+"\" does not exist")
		}
		cols, err := s.describeStmt(ctx, p.stmt, p.params, p.text)
		if err != nil {
			return err
		}
		s.sendDescription(cols, p.formats)
	default:
		return pgError(codeProtocolViolation, "invalid DESCRIBE message subtype")
	}
	return nil
}

func (s *session) sendDescription(cols []column, formats []int16) {
	if cols == nil {
		s.be.Send(&pgproto3.NoData{})
		return
	}
	s.be.Send(rowDescription(cols, formats))
}

func (s *session) execute(m *pgproto3.Execute) error {
	p, ok := s.portals[m.Portal]
	if !ok {
		return pgError(codeInvalidCursor, "portal \""+m.Portal+"\" does not exist")
	}
	if p.res == nil && !p.done {
		res, err := s.runStmt(p.stmt, p.params, p.text)
		if err != nil {
			p.done = true
			return err
		}
		p.res = res
		s.sendNotices(res)
		s.flushStatus()
	}
	res := p.res
	switch {
	case p.stmt.kind == kindEmpty:
		s.be.Send(&pgproto3.EmptyQueryResponse{})
		return nil
	case res == nil:
		s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte("SELECT 0")})
		return nil
	case res.stream != nil:
		return s.executeFeed(p, int(m.MaxRows))
	}
	end := len(res.rows)
	if m.MaxRows > 0 && int(m.MaxRows) < end-p.sent {
		end = p.sent + int(m.MaxRows)
	}
	s.sendRows(res, p.formats, p.sent, end)
	n := end - p.sent
	p.sent = end
	if end < len(res.rows) {
		s.be.Send(&pgproto3.PortalSuspended{})
		return nil
	}
	tag := res.commandTag()
	if res.cols != nil && res.tag == "" {
		tag = "SELECT " + itoa(n)
	}
	s.be.Send(&pgproto3.CommandComplete{CommandTag: []byte(tag)})
	return nil
}

func (s *session) close(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(s.stmts, m.Name)
	case 'P':
		s.dropPortal(m.Name)
	default:
		return pgError(codeProtocolViolation, "invalid CLOSE message subtype")
	}
	s.be.Send(&pgproto3.CloseComplete{})
	return nil
}
