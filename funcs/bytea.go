package funcs

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Binary string functions over BYTEA, with Postgres's semantics. length,
// md5 and || also take BYTEA (string.go). encode and decode know hex,
// base64 (lines of 76 characters on output, whitespace ignored on input)
// and escape (bytea's escape form); convert_to and convert_from know only
// UTF8, the engine's one encoding.
var byteaFuncs = []*Func{
	{Name: "sha256", Doc: "the SHA-256 hash", Strict: true,
		Sigs: sigs(sig(types.Bytea, types.Bytea)),
		Impl: Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) {
			h := sha256.Sum256([]byte(a.S))
			return okv(types.ByteaValue(string(h[:])))
		}}},
	{Name: "octet_length", Doc: "the number of bytes", Strict: true,
		Sigs: sigs(sig(types.String, types.Int), sig(types.Bytea, types.Int)),
		Impl: Impl{F1: func(a types.Value) (types.Value, *sqlerr.Error) { return okv(types.IntValue(int64(len(a.S)))) }}},
	{Name: "encode", Doc: "bytes as text in a format: 'hex', 'base64' or 'escape'", Strict: true,
		Sigs: sigs(sig(types.Bytea, types.String, types.String)), Impl: Impl{F2: encode}},
	{Name: "decode", Doc: "text in a format ('hex', 'base64' or 'escape') as bytes", Strict: true,
		Sigs: sigs(sig(types.String, types.String, types.Bytea)), Impl: Impl{F2: decode}},
	{Name: "convert_to", Doc: "text as bytes in an encoding (only UTF8)", Strict: true,
		Sigs: sigs(sig(types.String, types.String, types.Bytea)),
		Impl: Impl{F2: func(a, enc types.Value) (types.Value, *sqlerr.Error) {
			if !isUTF8Name(enc.S) {
				return types.NullValue, sqlerr.New(sqlerr.InvalidParameter, "invalid destination encoding name %q", enc.S)
			}
			return okv(types.ByteaValue(a.S))
		}}},
	{Name: "convert_from", Doc: "bytes in an encoding (only UTF8) as text", Strict: true,
		Sigs: sigs(sig(types.Bytea, types.String, types.String)),
		Impl: Impl{F2: func(a, enc types.Value) (types.Value, *sqlerr.Error) {
			if !isUTF8Name(enc.S) {
				return types.NullValue, sqlerr.New(sqlerr.InvalidParameter, "invalid source encoding name %q", enc.S)
			}
			if err := checkUTF8(a.S); err != nil {
				return types.NullValue, err
			}
			return okv(types.StringValue(a.S))
		}}},
}

// isUTF8Name reports whether name is Postgres's name of UTF8 (any case,
// with or without punctuation).
func isUTF8Name(name string) bool {
	n := strings.NewReplacer("-", "", "_", "").Replace(strings.ToUpper(name))
	return n == "UTF8" || n == "UNICODE"
}

// checkUTF8 fails as Postgres does on bytes that are not UTF-8 text or
// that hold a zero byte, naming the bytes of the bad character.
func checkUTF8(s string) *sqlerr.Error {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r != utf8.RuneError || n > 1) && r != 0 {
			i += n
			continue
		}
		end := min(i+utf8Len(s[i]), len(s))
		parts := make([]string, 0, end-i)
		for j := i; j < end; j++ {
			parts = append(parts, "0x"+hex.EncodeToString([]byte{s[j]}))
		}
		return sqlerr.New(CodeBadEncoding, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(parts, " "))
	}
	return nil
}

// utf8Len is the length a UTF-8 character starting with byte c claims.
func utf8Len(c byte) int {
	switch {
	case c >= 0xF0 && c < 0xF8:
		return 4
	case c >= 0xE0 && c < 0xF0:
		return 3
	case c >= 0xC0 && c < 0xE0:
		return 2
	}
	return 1
}

func unknownFormat(f string) *sqlerr.Error {
	return sqlerr.New(sqlerr.InvalidParameter, "unrecognized encoding: %q", f)
}

func encode(a, f types.Value) (types.Value, *sqlerr.Error) {
	switch strings.ToLower(f.S) {
	case "hex":
		return okv(types.StringValue(hex.EncodeToString([]byte(a.S))))
	case "base64":
		return okv(types.StringValue(base64Lines(a.S)))
	case "escape":
		return okv(types.StringValue(types.EncodeByteaEscape(a.S)))
	}
	return types.NullValue, unknownFormat(f.S)
}

// base64Lines is Postgres's base64 output: a newline after every 76
// characters (also after the last group when it ends a line).
func base64Lines(b string) string {
	s := base64.StdEncoding.EncodeToString([]byte(b))
	if len(s) < 76 {
		return s
	}
	var out strings.Builder
	for len(s) >= 76 {
		out.WriteString(s[:76])
		out.WriteByte('\n')
		s = s[76:]
	}
	out.WriteString(s)
	return out.String()
}

func decode(a, f types.Value) (types.Value, *sqlerr.Error) {
	var (
		b   string
		err error
	)
	switch strings.ToLower(f.S) {
	case "hex":
		b, err = types.DecodeHex(a.S)
	case "base64":
		return decodeBase64(a.S)
	case "escape":
		b, err = types.DecodeByteaEscape(a.S)
	default:
		return types.NullValue, unknownFormat(f.S)
	}
	if err != nil {
		return types.NullValue, ByteaErr(err)
	}
	return okv(types.ByteaValue(b))
}

// decodeBase64 reads base64 text, ignoring whitespace, as Postgres does.
func decodeBase64(s string) (types.Value, *sqlerr.Error) {
	clean := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, s)
	for _, r := range clean {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=') {
			return types.NullValue, sqlerr.New(sqlerr.InvalidParameter, "invalid symbol %q found while decoding base64 sequence", string(r))
		}
	}
	b, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return types.NullValue, sqlerr.New(sqlerr.InvalidParameter, "invalid base64 end sequence").
			WithHint("Input data is missing padding, is truncated, or is otherwise corrupted.")
	}
	return okv(types.ByteaValue(string(b)))
}
