package pgwire

import (
	"context"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamsql/streamsql/sqlerr"
)

// pgError is an error the server raises itself, with its SQLSTATE.
func pgError(code, msg string) error { return &sqlerr.Error{Code: code, Msg: msg} }

func errNotSupported(what string) error {
	return pgError(sqlerr.FeatureNotSupport, what+" is not supported")
}

// SQLSTATE codes of protocol-level errors.
const (
	codeProtocolViolation = "08P01"
	codeDuplicatePrepared = "42P05"
	codeDuplicateCursor   = "42P03"
	codeInvalidStatement  = "26000"
	codeInvalidCursor     = "34000"
	codeInvalidTextRepr   = "22P02"
	codeInvalidParamValue = "22023"
	codeQueryCanceled     = sqlerr.QueryCanceled
	codeInvalidAuth       = "28P01"
	codeInternal          = sqlerr.InternalError
	codeUndefinedParam    = "42P02"
	codeSyntax            = sqlerr.SyntaxError
)

// sendError sends err as an ErrorResponse. query and off locate the
// statement in the client's query text: a positioned error (a syntax
// error) gets the Position field, a 1-based character offset into query.
func (s *session) sendError(err error, query string, off int) {
	s.be.Send(errorResponse(err, query, off))
}

func errorResponse(err error, query string, off int) *pgproto3.ErrorResponse {
	r := &pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: codeInternal, Message: err.Error()}
	var se *sqlerr.Error
	switch {
	case errors.As(err, &se):
		r.Code = se.Code
		if r.Code == "" {
			r.Code = codeInternal
		}
		r.Message = se.Msg
		if se.Err != nil {
			r.Message += ": " + se.Err.Error()
		}
		r.Hint = se.Hint
		if se.Pos.IsValid() && query != "" {
			b := min(max(off+se.Pos.Offset, 0), len(query))
			r.Position = int32(utf8.RuneCountInString(query[:b]) + 1)
		}
	case errors.Is(err, context.Canceled):
		r.Code, r.Message = codeQueryCanceled, "canceling statement due to user request"
	case errors.Is(err, context.DeadlineExceeded):
		r.Code, r.Message = codeQueryCanceled, "canceling statement due to statement timeout"
	}
	if r.Code == codeQueryCanceled && errors.Is(err, context.DeadlineExceeded) {
		r.Message = "canceling statement due to statement timeout"
	} else if r.Code == codeQueryCanceled {
		r.Message = "canceling statement due to user request"
	}
	return r
}

// itoa is strconv.Itoa (short for the messages below).
func itoa(n int) string { return strconv.Itoa(n) }
