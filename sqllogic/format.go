package sqllogic

import (
	"crypto/md5"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/types"
)

// formatValue renders v as the result text for column type letter t:
// NULL is "NULL"; I prints an Int as is and truncates a Float or Decimal;
// R prints an Int, Float or Decimal with three decimals (a Decimal
// rounded exactly, half away from zero); T, B and every other combination
// print the Postgres text form (a Decimal with its own scale). An empty text is "(empty)" and control
// characters become '@' so each row stays on one line.
func formatValue(v types.Value, t byte) string {
	if v.IsNull() {
		return "NULL"
	}
	var s string
	switch {
	case t == 'I' && v.K == types.Float && !isNonFinite(v.F):
		s = strconv.FormatInt(int64(v.F), 10)
	case t == 'I' && v.K == types.Decimal:
		s = decimalText(v, 0)
	case t == 'R' && v.K == types.Decimal:
		s = decimalText(v, 3)
	case t == 'R' && (v.K == types.Int || v.K == types.Float) && !isNonFinite(v.AsFloat()):
		s = fmt.Sprintf("%.3f", v.AsFloat())
	default:
		s = v.String()
	}
	if s == "" {
		return "(empty)"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '@'
		}
		return r
	}, s)
}

// decimalText prints a Decimal truncated (scale 0) or rounded (scale 3)
// to scale digits.
func decimalText(v types.Value, scale int) string {
	if scale == 0 {
		if types.Compare(v, types.DecimalFromInt(0)) < 0 {
			r, _ := types.DecimalCeil(v)
			return r.String()
		}
		r, _ := types.DecimalFloor(v)
		return r.String()
	}
	r, err := types.DecimalRound(v, scale)
	if err != nil {
		return v.String()
	}
	return r.String()
}

func isNonFinite(f float64) bool { return math.IsNaN(f) || math.IsInf(f, 0) }

// formatRows renders each row as its values formatted by the type
// letters. The caller has checked that every row has len(typeLetters)
// values.
// TIMESTAMPTZ values (and arrays of them) print in zone loc, as a client of a session in that
// TimeZone sees them.
func formatRows(rows []types.Row, typeLetters string, loc *time.Location) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, v := range r {
			switch v.K {
			case types.TimestampTZ:
				v = types.StringValue(types.FormatTimestampTZ(v.I, loc))
			case types.ArrayOf(types.TimestampTZ):
				v = types.StringValue(types.FormatArrayIn(v, loc))
			}
			vals[j] = formatValue(v, typeLetters[j])
		}
		out[i] = vals
	}
	return out
}

// sortValues applies the sort mode to formatted rows and returns the
// values in result order (what the hash covers) and the result lines
// (what is compared): nosort keeps the engine's order, rowsort sorts rows
// by their space-joined text, valuesort sorts all values and lays them
// out ncols to a line.
func sortValues(rows [][]string, mode sortMode, ncols int) (values, lines []string) {
	switch mode {
	case rowSort:
		rows = slices.Clone(rows)
		slices.SortStableFunc(rows, func(a, b []string) int {
			return strings.Compare(strings.Join(a, " "), strings.Join(b, " "))
		})
	case valueSort:
		for _, r := range rows {
			values = append(values, r...)
		}
		slices.Sort(values)
		for i := 0; i < len(values); i += max(ncols, 1) {
			lines = append(lines, strings.Join(values[i:min(i+max(ncols, 1), len(values))], " "))
		}
		return values, lines
	}
	for _, r := range rows {
		values = append(values, r...)
		lines = append(lines, strings.Join(r, " "))
	}
	return values, lines
}

// hashLine returns "N values hashing to <md5>", the md5 being over every
// value followed by "\n", in result order, as the original sqllogictest
// computes it.
func hashLine(values []string) string {
	h := md5.New()
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return fmt.Sprintf("%d values hashing to %x", len(values), h.Sum(nil))
}

var hashLineRE = regexp.MustCompile(`^\d+ values hashing to [0-9a-f]{32}$`)

// isHashLine reports whether expected is a single hash-form line.
func isHashLine(expected []string) bool {
	return len(expected) == 1 && hashLineRE.MatchString(strings.TrimSpace(expected[0]))
}

// zoneOf loads a result's TimeZone (UTC when unknown).
func zoneOf(name string) *time.Location {
	if loc, err := types.LoadZone(name); err == nil {
		return loc
	}
	return time.UTC
}
