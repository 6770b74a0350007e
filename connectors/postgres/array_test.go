package postgres

import (
	"bytes"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// TestColumnArrayMatchesPgx checks the hand-written binary arrays byte
// for byte against pgx's own encoding of the same values.
func TestColumnArrayMatchesPgx(t *testing.T) {
	m := pgtype.NewMap()
	ts := func(us int64) pgtype.Timestamp { return pgtype.Timestamp{Time: time.UnixMicro(us).UTC(), Valid: true} }
	for _, tc := range []struct {
		kind types.Kind
		vals []types.Value
		pgx  any
	}{
		{types.Int, []types.Value{types.IntValue(1), {}, types.IntValue(-1 << 62)},
			[]pgtype.Int8{{Int64: 1, Valid: true}, {}, {Int64: -1 << 62, Valid: true}}},
		{types.Float, []types.Value{types.FloatValue(1.5), types.IntValue(3), {}},
			[]pgtype.Float8{{Float64: 1.5, Valid: true}, {Float64: 3, Valid: true}, {}}},
		{types.Bool, []types.Value{types.BoolValue(true), types.BoolValue(false)},
			[]pgtype.Bool{{Bool: true, Valid: true}, {Bool: false, Valid: true}}},
		{types.String, []types.Value{types.StringValue("héllo"), types.StringValue(""), {}},
			[]pgtype.Text{{String: "héllo", Valid: true}, {String: "", Valid: true}, {}}},
		{types.Timestamp, []types.Value{types.TimestampValue(t0 + 7), types.TimestampValue(-5_000_000_123), {}},
			[]pgtype.Timestamp{ts(t0 + 7), ts(-5_000_000_123), {}}},
		{types.Interval, []types.Value{types.IntervalValue(90_000_003), types.IntervalValue(-1), types.IntervalOf(14, -3, 5)},
			[]pgtype.Interval{{Microseconds: 90_000_003, Valid: true}, {Microseconds: -1, Valid: true}, {Months: 14, Days: -3, Microseconds: 5, Valid: true}}},
		{types.Int, nil, []pgtype.Int8{}},
		{types.Decimal, []types.Value{dec("0.30"), {}, dec("-12345.6789"), types.IntValue(7), dec("98765432109876543210.000001")},
			[]pgtype.Numeric{num(30, -2), {}, num(-123456789, -4), num(7, 0), bigNum("98765432109876543210000001", -6)}},
		{types.TimestampTZ, []types.Value{types.TimestampTZValue(t0 + 7), {}},
			[]pgtype.Timestamptz{{Time: time.UnixMicro(t0 + 7), Valid: true}, {}}},
		{types.Time, []types.Value{types.TimeValue(45296500000), {}},
			[]pgtype.Time{{Microseconds: 45296500000, Valid: true}, {}}},
		{types.Date, []types.Value{types.DateValue(19723), types.DateValue(-1), {}},
			[]pgtype.Date{{Time: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Valid: true}, {Time: time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), Valid: true}, {}}},
	} {
		changes := make([]connectors.Change, len(tc.vals))
		for i, v := range tc.vals {
			changes[i] = connectors.Change{Op: connectors.Upsert, Row: types.Row{v}}
		}
		got, err := columnArray(types.Column{Name: "c", Type: tc.kind}, 0, changes)
		if err != nil {
			t.Fatalf("%s: %v", tc.kind, err)
		}
		want, err := m.Encode(arrayOIDs[tc.kind][1], pgtype.BinaryFormatCode, tc.pgx, nil)
		if err != nil {
			t.Fatalf("%s: pgx: %v", tc.kind, err)
		}
		if !bytes.Equal(got.b, want) {
			t.Errorf("%s array:\n got  %x\n want %x", tc.kind, got.b, want)
		}
	}
}

func dec(s string) types.Value {
	v, err := types.ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return v
}

func num(coef int64, exp int32) pgtype.Numeric {
	return pgtype.Numeric{Int: big.NewInt(coef), Exp: exp, Valid: true}
}

func bigNum(coef string, exp int32) pgtype.Numeric {
	n, _ := new(big.Int).SetString(coef, 10)
	return pgtype.Numeric{Int: n, Exp: exp, Valid: true}
}

func TestColumnArrayKindMismatch(t *testing.T) {
	ch := []connectors.Change{{Op: connectors.Upsert, Row: types.Row{types.StringValue("x")}}}
	_, err := columnArrays(types.Schema{{Name: "n", Type: types.Int}}, []int{0}, ch)
	if err == nil || !strings.Contains(err.Error(), "column n is BIGINT but a change carries a VARCHAR value") {
		t.Errorf("error = %v", err)
	}
}
