package types

import (
	"hash/maphash"
	"math"
	"strconv"
	"strings"
)

// Row is one tuple. A row is immutable once emitted: operators may keep
// the rows they receive (in state, in a view) and must never modify a row
// after passing it on; to change values, build a new row.
type Row []Value

// Clone returns a copy of r that shares no backing array with it.
func (r Row) Clone() Row {
	out := make(Row, len(r))
	copy(out, r)
	return out
}

// String formats the row as space-separated Postgres text values.
func (r Row) String() string {
	var b strings.Builder
	for i, v := range r {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Column is one named, typed column of a schema.
type Column struct {
	Name string
	Type Kind
	// Precision and Scale are a DECIMAL(p, s) column's declaration: its
	// values are rounded to Scale digits and may have at most
	// Precision - Scale before the point. Precision 0 is an unconstrained
	// DECIMAL, whose values keep the scale they come with.
	Precision, Scale int
}

// TypeName is the column's SQL type, with a DECIMAL's (p,s).
func (c Column) TypeName() string {
	if c.Type == Decimal && c.Precision > 0 {
		return "DECIMAL(" + strconv.Itoa(c.Precision) + "," + strconv.Itoa(c.Scale) + ")"
	}
	return c.Type.String()
}

// Schema is the ordered list of a relation's columns.
type Schema []Column

// Index returns the position of the column named name (case-insensitive),
// or -1.
func (s Schema) Index(name string) int {
	for i, c := range s {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// Names returns the column names in order.
func (s Schema) Names() []string {
	out := make([]string, len(s))
	for i, c := range s {
		out[i] = c.Name
	}
	return out
}

var hashSeed = maphash.MakeSeed()

// HashValues hashes the values of r at the given column positions, values
// that are equal as keys alike (KeyFloat). It is stable within a process
// only; use it to route rows, never to persist.
func HashValues(r Row, cols []int) uint64 {
	var h maphash.Hash
	h.SetSeed(hashSeed)
	var buf [11]byte
	for _, c := range cols {
		v := r[c]
		switch v.K {
		case Decimal:
			v = DecimalNormalize(v) // 1.0 and 1.00 are one key
		case JSONB:
			v = JSONBKeyForm(v) // {"a": 1.0} and {"a": 1} too
		}
		if v.K.IsArray() {
			v = ArrayKeyForm(v) // {1.0} and {1} too
		}
		buf[0] = byte(v.K)
		buf[1], buf[2] = byte(v.Scale), byte(v.Scale>>8)
		x := uint64(v.I)
		if v.K == Float {
			x = math.Float64bits(KeyFloat(v.F)) // 0 = -0, NaN = NaN
		}
		for i := 0; i < 8; i++ {
			buf[3+i] = byte(x >> (8 * i))
		}
		_, _ = h.Write(buf[:])
		if v.K == String || v.K == Decimal || v.K == JSONB || v.K == Bytea || v.K.IsArray() {
			_, _ = h.WriteString(v.S)
		}
	}
	return h.Sum64()
}
