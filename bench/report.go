package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable prints reports as an aligned table, one row per query: the
// median figures, the per-core floor and Flink's per-core figure.
func WriteTable(w io.Writer, reps []Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "query\tevents\twall s\tCPU s\tevents/s/core\tevents/s all cores\tpeak RSS MiB\tstate MiB\tout rows\tfloor/core\tFlink/core\t")
	for _, r := range reps {
		if r.NotSupported != "" || r.Failed != "" {
			what := "not supported"
			if r.Failed != "" {
				what = "FAILED"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\t\t\t%s\t%s\t\n", r.Query, group(r.Events), what, floorText(r.Query), flinkText(r.Query))
			continue
		}
		m := r.Median
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%s\t%s\t%.0f\t%.1f\t%s\t%s\t%s\t\n",
			r.Query, group(m.Events), m.Wall.Seconds(), m.CPU.Seconds(),
			group(int64(m.PerCore())), group(int64(m.AllCores())),
			float64(m.PeakRSS)/(1<<20), float64(m.StateBytes)/(1<<20),
			group(m.SinkRows), floorText(r.Query)+verdict(r), flinkText(r.Query))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range reps {
		if r.NotSupported != "" {
			fmt.Fprintf(w, "%s: not supported: %s\n", r.Query, r.NotSupported)
		}
		if r.Failed != "" {
			fmt.Fprintf(w, "%s: failed: %s\n", r.Query, r.Failed)
		}
	}
	return nil
}

func floorText(q string) string {
	if f, ok := Floors[q]; ok {
		return group(int64(f))
	}
	return "-"
}

func flinkText(q string) string {
	if f, ok := Flink[q]; ok {
		return group(int64(f))
	}
	return "-"
}

// verdict marks a figure below its floor.
func verdict(r Report) string {
	if f, ok := Floors[r.Query]; ok && r.Median.PerCore() < f {
		return " MISS"
	}
	return ""
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// FileSQL is the JSON-file variant of q0 the protocol asks for: bids read
// from path (JSON lines) through the file connector, parsing included.
func FileSQL(path string) string {
	return `CREATE SOURCE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    date_time TIMESTAMP, extra VARCHAR,
    WATERMARK FOR date_time AS date_time - INTERVAL '4' SECOND
) WITH (connector = 'file', path = '` + strings.ReplaceAll(path, "'", "''") + `', format = 'json');

CREATE SINK q0_out AS
SELECT auction, bidder, price, date_time
FROM bid
WITH (connector = 'blackhole');
`
}
