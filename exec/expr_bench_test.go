package exec

import (
	"strconv"
	"testing"

	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

const benchBatch = 1024

// benchRows is a batch of Nexmark-like bids: auction, bidder, price.
func benchRows() []types.Row {
	rows := make([]types.Row, benchBatch)
	for i := range rows {
		rows[i] = types.Row{types.IntValue(int64(1000 + i)), types.IntValue(int64(i * 7)), types.IntValue(int64(100 + i%500))}
	}
	return rows
}

var benchSchema = []planner.Scalar{
	&planner.ColRef{Index: 0, Name: "auction", T: types.Int},
	&planner.ColRef{Index: 1, Name: "bidder", T: types.Int},
	&planner.ColRef{Index: 2, Name: "price", T: types.Int},
}

func reportPerRow(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchBatch, "ns/row")
}

// BenchmarkFilterModEq measures the Nexmark q1/q2-style filter
// `auction % 123 = 0` over a batch of 1024 rows.
func BenchmarkFilterModEq(b *testing.B) {
	pred := &planner.Call{Fn: "=", T: types.Bool, Args: []planner.Scalar{
		&planner.Call{Fn: "%", T: types.Int, Args: []planner.Scalar{benchSchema[0], &planner.Const{V: types.IntValue(123)}}},
		&planner.Const{V: types.IntValue(0)},
	}}
	f, err := CompileFilter(pred, &EvalErrors{})
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows()
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			if f(r) {
				n++
			}
		}
	}
	reportPerRow(b)
	if n == 0 {
		b.Fatal("nothing matched")
	}
}

// BenchmarkProjectMulFloat measures the Nexmark q1 projection
// `0.908 * price` over a batch of 1024 rows.
func BenchmarkProjectMulFloat(b *testing.B) {
	benchProject(b, &planner.Call{Fn: "*", T: types.Float, Args: []planner.Scalar{
		&planner.Const{V: types.FloatValue(0.908)}, benchSchema[2],
	}})
}

// BenchmarkFilterGeneric measures a filter that takes the generic paths:
// a string comparison ANDed with a CASE.
func BenchmarkFilterGeneric(b *testing.B) {
	pred := &planner.Call{Fn: "and", T: types.Bool, Args: []planner.Scalar{
		&planner.Call{Fn: ">", T: types.Bool, Args: []planner.Scalar{benchSchema[2], &planner.Const{V: types.FloatValue(200.5)}}},
		&planner.Call{Fn: "<>", T: types.Bool, Args: []planner.Scalar{
			&planner.Case{T: types.Int, Whens: []planner.When{{
				Cond:   &planner.Call{Fn: "<", T: types.Bool, Args: []planner.Scalar{benchSchema[1], &planner.Const{V: types.IntValue(100)}}},
				Result: benchSchema[0],
			}}, Else: &planner.Const{V: types.IntValue(1)}},
			&planner.Const{V: types.IntValue(0)},
		}},
	}}
	f, err := CompileFilter(pred, &EvalErrors{})
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			f(r)
		}
	}
	reportPerRow(b)
}

// benchProject measures a projection of expr over the bench batch; the
// result must have expr's kind.
func benchProject(b *testing.B, expr planner.Scalar) {
	ev, err := CompileScalar(expr, &EvalErrors{})
	if err != nil {
		b.Fatal(err)
	}
	rows := benchRows()
	out := make([]types.Value, benchBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, r := range rows {
			out[j] = ev(r)
		}
	}
	reportPerRow(b)
	if out[0].K != expr.Type() {
		b.Fatalf("result %v, want %v", out[0].K, expr.Type())
	}
}

// BenchmarkProjectIntArith measures nested BIGINT arithmetic that no
// fused shape covers: `(auction + bidder) * 2 - price`.
func BenchmarkProjectIntArith(b *testing.B) {
	sum := &planner.Call{Fn: "+", T: types.Int, Args: []planner.Scalar{benchSchema[0], benchSchema[1]}}
	times := &planner.Call{Fn: "*", T: types.Int, Args: []planner.Scalar{sum, &planner.Const{V: types.IntValue(2)}}}
	benchProject(b, &planner.Call{Fn: "-", T: types.Int, Args: []planner.Scalar{times, benchSchema[2]}})
}

// BenchmarkProjectDecimalAdd measures exact DECIMAL addition:
// `CAST(price AS DECIMAL) + 0.25`.
func BenchmarkProjectDecimalAdd(b *testing.B) {
	price := &planner.Cast{Arg: benchSchema[2], To: types.Decimal}
	benchProject(b, &planner.Call{Fn: "+", T: types.Decimal, Args: []planner.Scalar{price, &planner.Const{V: types.DecimalValue(25, 2)}}})
}

// BenchmarkProjectLower measures a registry string function:
// `lower(CAST(bidder AS VARCHAR))`.
func BenchmarkProjectLower(b *testing.B) {
	s := &planner.Cast{Arg: benchSchema[1], To: types.String}
	benchProject(b, &planner.Call{Fn: "lower", T: types.String, Args: []planner.Scalar{s}})
}

// BenchmarkProjectRegexpLike measures a regular expression with a
// constant pattern, compiled once: `CAST(bidder AS VARCHAR) ~ '^1[0-9]*7$'`.
func BenchmarkProjectRegexpLike(b *testing.B) {
	s := &planner.Cast{Arg: benchSchema[1], To: types.String}
	benchProject(b, &planner.Call{Fn: "regexp_like", T: types.Bool, Args: []planner.Scalar{s, &planner.Const{V: types.StringValue("^1[0-9]*7$")}}})
}

// BenchmarkProjectRegexpMatch measures regexp_match with a constant
// pattern of two groups, compiled once, over the bidder's text:
// `regexp_match(CAST(bidder AS VARCHAR), '^([0-9])([0-9]*)$')`, a TEXT[]
// of two elements per row.
func BenchmarkProjectRegexpMatch(b *testing.B) {
	s := &planner.Cast{Arg: benchSchema[1], To: types.String}
	benchProject(b, &planner.Call{Fn: "regexp_match", T: types.ArrayOf(types.String), Args: []planner.Scalar{s, &planner.Const{V: types.StringValue("^([0-9])([0-9]*)$")}}})
}

// BenchmarkProjectJSONField measures `payload->>'name'` on a 200-byte
// Nexmark-like JSON payload (a JSONB column).
func BenchmarkProjectJSONField(b *testing.B) {
	rows := make([]types.Row, benchBatch)
	for i := range rows {
		v, err := types.ParseJSONB(`{"auction": 1000, "bidder": ` + strconv.Itoa(i) + `, "price": 8765, "channel": "Google", "url": "https://www.nexmark.com/tmuv/vwzx/item.htm?query=1", "name": "bidder-` + strconv.Itoa(i) + `", "extra": "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`)
		if err != nil {
			b.Fatal(err)
		}
		rows[i] = types.Row{v}
	}
	if n := len(rows[0][0].S); n < 180 || n > 220 {
		b.Fatalf("payload is %d bytes, want about 200", n)
	}
	ev, err := CompileScalar(&planner.Call{Fn: "->>", T: types.String, Args: []planner.Scalar{
		&planner.ColRef{Index: 0, Name: "payload", T: types.JSONB}, &planner.Const{V: types.StringValue("name")}}}, &EvalErrors{})
	if err != nil {
		b.Fatal(err)
	}
	out := make([]types.Value, benchBatch)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, r := range rows {
			out[j] = ev(r)
		}
	}
	reportPerRow(b)
	if out[7].S != "bidder-7" {
		b.Fatalf("payload->>'name' = %v", out[7])
	}
}
