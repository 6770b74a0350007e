package types

import "testing"

// TestOIDs: every kind's Postgres type reads back as the kind, arrays as
// arrays of their element's, and each array type has one element type.
func TestOIDs(t *testing.T) {
	for k := Bool; k <= Bytea; k++ {
		if got := KindOfOID(OIDOf(k)); got != k {
			t.Errorf("KindOfOID(OIDOf(%s) = %d) = %s", k, OIDOf(k), got)
		}
		a := OIDOf(ArrayOf(k))
		if e, ok := ElemOID(a); !ok || e != OIDOf(k) {
			t.Errorf("array type of %s is %d, whose element is %d, %v", k, a, e, ok)
		}
		if want := ArrayOf(k); ArrayElemOK(k) && KindOfOID(a) != want {
			t.Errorf("KindOfOID(%d) = %s, want %s", a, KindOfOID(a), want)
		}
	}
	for _, c := range []struct {
		oid  uint32
		kind Kind
	}{{OIDInt2, Int}, {OIDInt4, Int}, {OIDFloat4, Float}, {OIDVarchar, String}, {OIDBpchar, String}, {OIDName, String}, {OIDUnknown, Null}, {OIDInt4Array, ArrayOf(Int)}} {
		if got := KindOfOID(c.oid); got != c.kind {
			t.Errorf("KindOfOID(%d) = %s, want %s", c.oid, got, c.kind)
		}
	}
}
