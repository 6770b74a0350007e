package exec

import (
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

const sumValues = 1_000_000

// benchSum folds sumValues values through a sum accumulator per
// iteration; the values are cents (0.00 to 9.99) as DOUBLE or
// DECIMAL(10,2), the money column.
func benchSum(b *testing.B, kind types.Kind, val func(i int) types.Value) {
	vals := make([]types.Value, sumValues)
	for i := range vals {
		vals[i] = val(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var last types.Value
	for i := 0; i < b.N; i++ {
		a := newAccumulator(planner.AggCall{Fn: "sum", T: kind, Arg: 0})
		for _, v := range vals {
			a.add(v)
		}
		last = a.result()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/sumValues, "ns/value")
	if last.IsNull() {
		b.Fatal("no sum")
	}
}

// BenchmarkSumFloat is the old path: DECIMAL(10,2) values held as doubles.
func BenchmarkSumFloat(b *testing.B) {
	benchSum(b, types.Float, func(i int) types.Value { return types.FloatValue(float64(i%1000) / 100) })
}

// BenchmarkSumDecimal sums the same values as exact decimals (the int64
// fast path).
func BenchmarkSumDecimal(b *testing.B) {
	benchSum(b, types.Decimal, func(i int) types.Value { return types.DecimalValue(int64(i%1000), 2) })
}

// BenchmarkSumDecimalMixedScale sums decimals whose scales differ (2 and
// 3), so every addition aligns them first.
func BenchmarkSumDecimalMixedScale(b *testing.B) {
	benchSum(b, types.Decimal, func(i int) types.Value { return types.DecimalValue(int64(i%1000), 2+i%2) })
}

// BenchmarkSumDecimalLarge sums DECIMAL(38,10)-sized values beyond
// int64: the exact math/big fallback.
func BenchmarkSumDecimalLarge(b *testing.B) {
	big, _ := types.ParseDecimal("12345678901234567890.0123456789")
	benchSum(b, types.Decimal, func(int) types.Value { return big })
}

// BenchmarkProjectMulDecimal is BenchmarkProjectMulFloat with Postgres's
// typing: `0.908 * price` is a numeric, price cast from BIGINT.
func BenchmarkProjectMulDecimal(b *testing.B) {
	e := &planner.Call{Fn: "*", T: types.Decimal, Args: []planner.Scalar{
		&planner.Const{V: types.DecimalValue(908, 3)}, &planner.Cast{Arg: benchSchema[2], To: types.Decimal},
	}}
	ev, err := CompileScalar(e, &EvalErrors{})
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			_ = ev(r)
		}
	}
	reportPerRow(b)
}

// BenchmarkCountDistinctBigint adds sumValues BIGINTs, a tenth of them
// distinct, to count(DISTINCT) and asks for the result after every
// thousand, as an aggregate re-emits its group after each batch.
func BenchmarkCountDistinctBigint(b *testing.B) {
	b.ReportAllocs()
	var last types.Value
	for i := 0; i < b.N; i++ {
		a := newAccumulator(planner.AggCall{Fn: "count", T: types.Int, Arg: 0, Distinct: true})
		for j := 0; j < sumValues; j++ {
			a.add(types.IntValue(int64(j % (sumValues / 10))))
			if j%1000 == 999 {
				last = a.result()
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/sumValues, "ns/value")
	if last.I != sumValues/10 {
		b.Fatalf("count = %d", last.I)
	}
}
