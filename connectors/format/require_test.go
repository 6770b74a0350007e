package format

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

func TestRequireRejectsMissingTimeColumn(t *testing.T) {
	schema := types.Schema{{Name: "k", Type: types.Int}, {Name: "ts", Type: types.Timestamp}}
	for _, tc := range []struct {
		format, header, record, err string
	}{
		{"json", "", `{"k":1,"ts":"2024-01-01 00:00:01"}`, ""},
		{"json", "", `{"k":1}`, "column ts: missing or null"},
		{"json", "", `{"k":1,"ts":null}`, "column ts: missing or null"},
		{"csv", "", `1,`, "column ts: missing or null"},
		{"csv", "ts,k", `2024-01-01 00:00:01,1`, ""},
		{"csv", "k", `1`, "column ts: missing or null"},
	} {
		opts := connectors.Opts{Values: map[string]string{"csv.header": "false"}, Specs: Options}
		if tc.header != "" {
			opts.Values["csv.header"] = "true"
		}
		dec, err := NewDecoder(tc.format, schema, opts)
		if err != nil {
			t.Fatal(err)
		}
		dec = Require(dec, schema, []int{1})
		if tc.header != "" {
			hs, ok := dec.(HeaderSetter)
			if !ok {
				t.Fatal("Require dropped the CSV decoder's HeaderSetter")
			}
			if err := hs.SetHeaderLine([]byte(tc.header)); err != nil {
				t.Fatal(err)
			}
		}
		_, err = dec.Decode([]byte(tc.record))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %q: %v", tc.format, tc.record, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %q: error %v, want %q", tc.format, tc.record, err, tc.err)
		}
	}
}
