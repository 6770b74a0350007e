package funcs

import (
	"errors"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// SQLSTATE codes of runtime failures that sqlerr does not name.
const (
	CodeOutOfRange     = "22003" // numeric_value_out_of_range
	CodeInvalidLog     = "2201E" // invalid_argument_for_logarithm
	CodeInvalidPower   = "2201F" // invalid_argument_for_power_function
	CodeSubstringError = "22011" // substring_error
	CodeTimestampRange = "22008" // datetime_field_overflow
	CodeInvalidRegex   = "2201B" // invalid_regular_expression
	CodeBadEncoding    = "22021" // character_not_in_repertoire
)

// Preallocated runtime errors, so the error path of hot functions does
// not allocate.
var (
	ErrDivZero     = sqlerr.New(sqlerr.DivisionByZero, "division by zero")
	ErrIntRange    = sqlerr.New(CodeOutOfRange, "bigint out of range")
	ErrTSRange     = sqlerr.New(CodeTimestampRange, "timestamp out of range")
	ErrDecOverflow = sqlerr.New(CodeOutOfRange, "value overflows numeric format")
	errSqrtNeg     = sqlerr.New(CodeInvalidPower, "cannot take square root of a negative number")
	errLogZero     = sqlerr.New(CodeInvalidLog, "cannot take logarithm of zero")
	errLogNeg      = sqlerr.New(CodeInvalidLog, "cannot take logarithm of a negative number")
	errPowZeroNeg  = sqlerr.New(CodeInvalidPower, "zero raised to a negative power is undefined")
	errPowComplex  = sqlerr.New(CodeInvalidPower, "a negative number raised to a non-integer power yields a complex result")
	errNegSubstr   = sqlerr.New(CodeSubstringError, "negative substring length not allowed")
	errSplitZero   = sqlerr.New(sqlerr.InvalidParameter, "field position must not be zero")
	errFloatRange  = sqlerr.New(CodeOutOfRange, "value out of range: overflow")
	errFloatUnder  = sqlerr.New(CodeOutOfRange, "value out of range: underflow")
)

// DecimalErr turns a types.DecimalError into a *sqlerr.Error with its
// SQLSTATE (the common ones preallocated).
func DecimalErr(err error) *sqlerr.Error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, types.ErrDecimalOverflow):
		return ErrDecOverflow
	case errors.Is(err, types.ErrDecimalDivZero):
		return ErrDivZero
	}
	var de *types.DecimalError
	if errors.As(err, &de) {
		return sqlerr.New(de.Code, "%s", de.Msg)
	}
	return sqlerr.New(sqlerr.DataException, "%s", err.Error())
}

func okv(v types.Value) (types.Value, *sqlerr.Error) { return v, nil }

// ByteaErr turns a types.ByteaError (bad bytea or hex text) into a
// *sqlerr.Error with its SQLSTATE.
func ByteaErr(err error) *sqlerr.Error {
	var be *types.ByteaError
	if errors.As(err, &be) {
		return sqlerr.New(be.Code, "%s", be.Msg)
	}
	return sqlerr.New(sqlerr.DataException, "%s", err.Error())
}

// ValueErr turns an input error of the types package (array, bytea,
// JSON or decimal text) into a *sqlerr.Error with its SQLSTATE.
func ValueErr(err error) *sqlerr.Error {
	var ae *types.ArrayError
	var be *types.ByteaError
	var je *types.JSONError
	switch {
	case errors.As(err, &ae):
		return sqlerr.New(ae.Code, "%s", ae.Msg)
	case errors.As(err, &be):
		return sqlerr.New(be.Code, "%s", be.Msg)
	case errors.As(err, &je):
		return sqlerr.New(je.Code, "%s", je.Msg)
	}
	var de *types.DecimalError
	if errors.As(err, &de) {
		return sqlerr.New(de.Code, "%s", de.Msg)
	}
	return sqlerr.New("22P02", "%s", err.Error())
}
