package types

import "testing"

func TestByteaText(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\x`, ""},
		{`\xDEad BE ef`, "\xde\xad\xbe\xef"},
		{`abc`, "abc"},
		{`a\\b\000\377`, "a\\b\x00\xff"},
	}
	for _, tt := range tests {
		v, err := ParseBytea(tt.in)
		if err != nil || v.K != Bytea || v.S != tt.want {
			t.Errorf("ParseBytea(%q) = %q, %v; want %q", tt.in, v.S, err, tt.want)
		}
	}
	for _, bad := range []string{`\x0`, `\xzz`, `\x0é`, `a\9`, `a\`, `\400`} {
		if _, err := ParseBytea(bad); err == nil {
			t.Errorf("ParseBytea(%q) succeeded", bad)
		}
	}
	if got := ByteaValue("\x00\xffa").String(); got != `\x00ff61` {
		t.Errorf("String = %s", got)
	}
	if got := EncodeByteaEscape("a\\\x00\x80\n"); got != "a\\\\\\000\\200\n" {
		t.Errorf("EncodeByteaEscape = %q", got)
	}
	if Compare(ByteaValue("\x01"), ByteaValue("\x01\x00")) >= 0 || Compare(ByteaValue("\x02"), ByteaValue("\x01\x00")) <= 0 {
		t.Error("bytea order is not memcmp, then length")
	}
}
