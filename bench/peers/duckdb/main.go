// Command duckdb runs bench/peers' query in DuckDB: the 10 s TUMBLE per
// auction (count(*), max(price)) over a JSON-lines bids file, written as
// CSV lines "auction,window_start,bids,top" sorted by auction and window
// start, the form bench/peers/run.sh compares streamsql's sink output in.
// It is its own module so that the streamsql module and binary stay free
// of cgo.
//
// Usage: duckdb BIDS.jsonl OUT.csv
package main

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// query is the batch form of bench/peers/view.sql: every bid is on time
// (the file's disorder is within the 2 s watermark delay), so the window
// rows are a plain GROUP BY of the 10 s bucket. $in and $out are replaced
// by the quoted paths.
const query = `COPY (
  SELECT auction,
         strftime(time_bucket(INTERVAL 10 SECOND, epoch_ms(date_time)), '%Y-%m-%d %H:%M:%S') AS window_start,
         count(*) AS bids,
         max(price) AS top
  FROM read_json($in, format = 'newline_delimited',
       columns = {auction: 'BIGINT', bidder: 'BIGINT', price: 'BIGINT', date_time: 'BIGINT'})
  GROUP BY ALL
  ORDER BY auction, window_start
) TO $out (FORMAT csv, HEADER false)`

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: duckdb BIDS.jsonl OUT.csv")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "duckdb:", err)
		os.Exit(1)
	}
}

// run executes the query in an in-memory database.
func run(in, out string) error {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return fmt.Errorf("open: %w", err)
	}
	defer db.Close()
	q := strings.NewReplacer("$in", quote(in), "$out", quote(out)).Replace(query)
	if _, err := db.Exec(q); err != nil {
		return fmt.Errorf("query: %w", err)
	}
	return nil
}

// quote returns s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
