package types

import (
	"encoding/hex"
	"strings"
)

// A BYTEA value holds its bytes in Value.S. Its text form is Postgres's
// default (bytea_output = hex): `\x` and two lowercase hexadecimal digits
// per byte. Input takes that form (whitespace allowed between digit pairs)
// or the escape form, where `\\` is a backslash, `\ooo` an octal byte and
// any other character itself.

// ByteaError is a bytea input failure with its SQLSTATE.
type ByteaError struct {
	Code string
	Msg  string
}

func (e *ByteaError) Error() string { return e.Msg }

// ByteaValue returns a BYTEA value holding the bytes b.
func ByteaValue(b string) Value { return Value{K: Bytea, S: b} }

// FormatBytea is the hex text form of the bytes b.
func FormatBytea(b string) string {
	out := make([]byte, 2+2*len(b))
	out[0], out[1] = '\\', 'x'
	hex.Encode(out[2:], []byte(b))
	return string(out)
}

// ParseBytea reads bytea text in the hex or the escape form.
func ParseBytea(s string) (Value, error) {
	if len(s) >= 2 && s[0] == '\\' && (s[1] == 'x' || s[1] == 'X') {
		b, err := DecodeHex(s[2:])
		return ByteaValue(b), err
	}
	b, err := DecodeByteaEscape(s)
	return ByteaValue(b), err
}

// DecodeHex reads pairs of hexadecimal digits, skipping whitespace
// between pairs, as Postgres's hex decoder does.
func DecodeHex(s string) (string, error) {
	out := make([]byte, 0, len(s)/2)
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			i++
			continue
		}
		hi, ok := hexDigit(c)
		if !ok {
			return "", badHexDigit(s[i:])
		}
		if i+1 >= len(s) {
			return "", &ByteaError{Code: "22023", Msg: "invalid hexadecimal data: odd number of digits"}
		}
		lo, ok := hexDigit(s[i+1])
		if !ok {
			return "", badHexDigit(s[i+1:])
		}
		out = append(out, hi<<4|lo)
		i += 2
	}
	return string(out), nil
}

// badHexDigit reports the (possibly multibyte) character starting rest.
func badHexDigit(rest string) error {
	n := 1
	for n < len(rest) && rest[n]&0xC0 == 0x80 {
		n++
	}
	return &ByteaError{Code: "22023", Msg: `invalid hexadecimal digit: "` + rest[:n] + `"`}
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// DecodeByteaEscape reads bytea's escape form: `\\` is a backslash,
// `\ooo` (first digit 0-3) an octal byte, other characters themselves.
func DecodeByteaEscape(s string) (string, error) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, nil
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c != '\\':
			out = append(out, c)
			i++
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i += 2
		case i+3 < len(s) && isOctal(s[i+1], '3') && isOctal(s[i+2], '7') && isOctal(s[i+3], '7'):
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 4
		default:
			return "", &ByteaError{Code: "22P02", Msg: "invalid input syntax for type bytea"}
		}
	}
	return string(out), nil
}

func isOctal(c, top byte) bool { return c >= '0' && c <= top }

// EncodeByteaEscape is encode(b, 'escape'): a zero byte and bytes with
// the high bit set as `\ooo`, a backslash doubled, other bytes themselves.
func EncodeByteaEscape(b string) string {
	var out strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0 || c >= 0x80:
			out.WriteByte('\\')
			out.WriteByte('0' + c>>6)
			out.WriteByte('0' + (c>>3)&7)
			out.WriteByte('0' + c&7)
		case c == '\\':
			out.WriteString(`\\`)
		default:
			out.WriteByte(c)
		}
	}
	return out.String()
}
