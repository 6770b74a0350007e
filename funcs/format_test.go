package funcs

import (
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// TestTemplates checks TO_CHAR of numbers (n) and timestamps (t) and
// TO_TIMESTAMP (p) against the answers Postgres 15 gives (ERR: it fails).
func TestTemplates(t *testing.T) {
	cases := []struct{ kind, value, template, want string }{
		{`n`, `12`, `999`, `  12`},
		{`n`, `-12`, `999`, ` -12`},
		{`n`, `0`, `999`, `   0`},
		{`n`, `0.5`, `9.99`, `  .50`},
		{`n`, `0.5`, `0.99`, ` 0.50`},
		{`n`, `0.5`, `FM9.99`, `.5`},
		{`n`, `12.5`, `FM999.99`, `12.5`},
		{`n`, `12.5`, `999.99`, `  12.50`},
		{`n`, `1234567.891`, `9,999,999.99`, ` 1,234,567.89`},
		{`n`, `1234`, `9,999`, ` 1,234`},
		{`n`, `12`, `9,999`, `    12`},
		{`n`, `-12`, `FM9,999`, `-12`},
		{`n`, `12`, `S999`, ` +12`},
		{`n`, `-12`, `S999`, ` -12`},
		{`n`, `12`, `999S`, ` 12+`},
		{`n`, `-12`, `999S`, ` 12-`},
		{`n`, `-12`, `999PR`, ` <12>`},
		{`n`, `12`, `999PR`, `  12 `},
		{`n`, `-12`, `999MI`, ` 12-`},
		{`n`, `12`, `999MI`, ` 12 `},
		{`n`, `12`, `FM999PR`, `12`},
		{`n`, `-12`, `FM999PR`, `<12>`},
		{`n`, `12345`, `999`, ` ###`},
		{`n`, `12.345`, `99.9`, ` 12.3`},
		{`n`, `-0.5`, `9.9`, ` -.5`},
		{`n`, `12`, `0999`, ` 0012`},
		{`n`, `12`, `9099`, `  012`},
		{`n`, `7`, `FM0999`, `0007`},
		{`n`, `12`, `PL999`, `+  12`},
		{`n`, `-12`, `SG999`, `- 12`},
		{`n`, `125`, `99`, ` ##`},
		{`n`, `-1.005`, `FM9.99`, `-1.01`},
		{`n`, `100`, `FM999.`, `100`},
		{`n`, `100`, `FM999.99`, `100.`},
		{`n`, `0`, `FM999`, `0`},
		{`n`, `0`, `9.99`, `  .00`},
		{`n`, `0`, `FM9.99`, `0.`},
		{`n`, `3`, `9D9`, ` 3.0`},
		{`n`, `-3.25`, `FMS9.99`, `-3.25`},
		{`n`, `1.5`, `FM990.00`, `1.50`},
		{`n`, `-1234.5`, `FM9G999D99`, `-1,234.5`},
		{`n`, `42`, `"n="999`, `n=  42`},
		{`t`, `2024-03-05 14:07:09.123456`, `YYYY-MM-DD HH24:MI:SS`, `2024-03-05 14:07:09`},
		{`t`, `2024-03-05 14:07:09.123456`, `YYYY-MM-DD HH12:MI:SS AM MS US`, `2024-03-05 02:07:09 PM 123 123456`},
		{`t`, `2024-03-05 00:07:09`, `HH12 am a.m. PM p.m.`, `12 am a.m. AM a.m.`},
		{`t`, `2024-03-05 14:07:09`, `Day, DD Month YYYY`, `Tuesday  , 05 March     2024`},
		{`t`, `2024-03-05 14:07:09`, `FMDay, FMDD FMMonth YYYY`, `Tuesday, 5 March 2024`},
		{`t`, `2024-03-05 14:07:09`, `DY dy Dy MON mon Mon MONTH month`, `TUE tue Tue MAR mar Mar MARCH     march    `},
		{`t`, `2024-03-01 14:07:09`, `DDth DDTH FMDDth Q CC J D ID DDD IDDD WW IW W`, `01st 01ST 1st 1 21 2460371 6 5 061 061 09 09 1`},
		{`t`, `2024-12-30 14:07:09`, `IYYY-IW-ID YYY YY Y Y,YYY RM rm`, `2025-01-1 024 24 4 2,024 XII  xii `},
		{`t`, `2024-03-05 14:07:09`, `"Week" WW "of" YYYY \"x`, `Week 10 of 2024 "x`},
		{`t`, `2024-03-05 14:07:09`, `SSSS SSSSS TZ tz`, `50829 50829  `},
		{`t`, `2024-03-22 14:07:09`, `FMDDth FMMMth`, `22nd 3rd`},
		{`t`, `2024-03-23 04:07:09`, `HH24hh24 mi ss yyyy mm dd`, `0404 07 09 2024 03 23`},
		{`p`, `05 Mar 2024`, `DD Mon YYYY`, `2024-03-05 00:00:00`},
		{`p`, `2024-03-05 14:07:09`, `YYYY-MM-DD HH24:MI:SS`, `2024-03-05 14:07:09`},
		{`p`, `20240305`, `YYYYMMDD`, `2024-03-05 00:00:00`},
		{`p`, `2024-03-05 02:07:09 PM`, `YYYY-MM-DD HH12:MI:SS AM`, `2024-03-05 14:07:09`},
		{`p`, `2024-03-05 12:07:09.5`, `YYYY-MM-DD HH24:MI:SS.MS`, `2024-03-05 12:07:09.5`},
		{`p`, `2024-03-05 12:07:09.123456`, `YYYY-MM-DD HH24:MI:SS.US`, `2024-03-05 12:07:09.123456`},
		{`p`, `March 5, 24`, `Month DD, YY`, `2024-03-05 00:00:00`},
		{`p`, `2024-02-30`, `YYYY-MM-DD`, `ERR`},
		{`p`, `2024-13-01`, `YYYY-MM-DD`, `ERR`},
		{`p`, `x2024`, `YYYY`, `ERR`},
		{`p`, `1999 060`, `YYYY DDD`, `1999-03-01 00:00:00`},
		{`p`, `5/3/2024`, `DD/MM/YYYY`, `2024-03-05 00:00:00`},
	}
	for _, c := range cases {
		var got types.Value
		var err error
		switch c.kind {
		case "n":
			d, perr := types.ParseDecimal(c.value)
			if perr != nil {
				t.Fatal(perr)
			}
			got, err = callErr(toChar(d, types.StringValue(c.template)))
		case "t":
			us, perr := types.ParseTimestamp(c.value)
			if perr != nil {
				t.Fatal(perr)
			}
			got, err = callErr(toChar(types.TimestampValue(us), types.StringValue(c.template)))
		case "p":
			got, err = callErr(toTimestampText(types.StringValue(c.value), types.StringValue(c.template)))
		}
		switch {
		case c.want == "ERR" && err == nil:
			t.Errorf("%s %q %q = %v, want an error", c.kind, c.value, c.template, got)
		case c.want != "ERR" && (err != nil || got.String() != c.want):
			t.Errorf("%s %q %q = %q (%v), want %q", c.kind, c.value, c.template, got.String(), err, c.want)
		}
	}
}

// callErr turns a typed nil error into a nil error.
func callErr(v types.Value, err *sqlerr.Error) (types.Value, error) {
	if err == nil {
		return v, nil
	}
	return v, err
}
