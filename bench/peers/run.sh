#!/bin/sh
# bench/peers/run.sh [EVENTS] [ROUNDS]: issue 13's file workload in
# streamsql and DuckDB side by side (docs/benchmarks.md, "Against other
# engines on one file").
#
# EVENTS Nexmark bids as JSON lines {auction, bidder, price, date_time}
# (epoch ms, 1,000 per second, up to 2 s out of order: `streamsql bench
# --write-bids FILE --bid-shape peers`, seed 42), a 10 s TUMBLE per
# auction with count(*) and max(price), watermark delay 2 s, LATE DATA
# DROP, EMIT ON WINDOW CLOSE, into a file. Each round runs, in turn,
# streamsql with a materialized view and a sink on it
# (bench/viewcost/view.sql), streamsql with the query as the sink
# (bench/viewcost/sink.sql) and DuckDB (bench/peers/duckdb, the same
# query in batch). /usr/bin/time -v gives CPU seconds (user + sys) and
# peak RSS of the whole process; every run's rows are checked against
# DuckDB's (the script fails when they differ). The last lines are the
# medians over the rounds.
#
# Environment: WORK (default a new temp dir) holds the binaries, the bids
# file (kept: generate 10 M once) and the outputs; STREAMSQL a prebuilt
# binary; MEMORY_LIMIT passes --memory-limit to streamsql (default: its
# own); NODUCKDB=1 skips DuckDB (its runner needs cgo and a C compiler).
# eKuiper does not run here: docs/benchmarks.md cites the issue's figure.
set -eu
events=${1:-1000000}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-$(mktemp -d)}
bin=${STREAMSQL:-$WORK/streamsql}
[ -x "$bin" ] || (cd "$here/../.." && go build -o "$bin" ./cmd/streamsql)
duck=$WORK/duckdb-peers
if [ "${NODUCKDB:-}" != 1 ] && [ ! -x "$duck" ]; then
	(cd "$here/duckdb" && CGO_ENABLED=1 go build -o "$duck" .)
fi
bids=$WORK/peers-bids-$events.jsonl
[ -f "$bids" ] || "$bin" bench --write-bids "$bids" --bid-shape peers --events "$events"
limit=""
[ -z "${MEMORY_LIMIT:-}" ] || limit="--memory-limit $MEMORY_LIMIT"

# measure NAME CMD...: runs CMD under GNU time and appends
# "NAME cpu_s rss_mib" to $WORK/runs.txt.
measure() {
	name=$1
	shift
	/usr/bin/time -v "$@" 2>"$WORK/time.txt" >/dev/null || { cat "$WORK/time.txt" >&2; exit 1; }
	awk -v q="$name" '/User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {r=$NF}
		END {printf "%s %.2f %d\n", q, u+s, r/1024}' "$WORK/time.txt" >>"$WORK/runs.txt"
	tail -n 1 "$WORK/runs.txt"
}

# rows FILE: the sink's changelog as sorted CSV lines, the form DuckDB's
# runner writes (a line that is not an upsert is kept whole, so it differs).
rows() {
	sed -e 's/^{"auction":\([0-9-]*\),"window_start":"\([^"]*\)","bids":\([0-9]*\),"top":\([0-9-]*\),"__op":"upsert"}$/\1,\2,\3,\4/' "$1" |
		LC_ALL=C sort -t, -k1,1n -k2,2 >"$2"
}

: >"$WORK/runs.txt"
for i in $(seq "$rounds"); do
	for q in view sink; do
		rm -rf "$WORK/state" "$WORK/out.jsonl" "$WORK/out.jsonl".*
		sed -e "s|{{bids}}|$bids|" -e "s|{{out}}|$WORK/out.jsonl|" "$here/../viewcost/$q.sql" >"$WORK/$q.sql"
		# shellcheck disable=SC2086
		measure "streamsql-$q" "$bin" run --state-dir "$WORK/state" $limit "$WORK/$q.sql"
		rows "$WORK/out.jsonl" "$WORK/$q.csv"
	done
	if [ "${NODUCKDB:-}" != 1 ]; then
		measure duckdb "$duck" "$bids" "$WORK/duckdb.csv"
		for q in view sink; do
			cmp -s "$WORK/$q.csv" "$WORK/duckdb.csv" || { echo "streamsql-$q and duckdb differ: diff $WORK/$q.csv $WORK/duckdb.csv" >&2; exit 1; }
		done
	else
		cmp -s "$WORK/view.csv" "$WORK/sink.csv" || { echo "view and sink runs differ" >&2; exit 1; }
	fi
done
echo "identical outputs: $(wc -l <"$WORK/view.csv") window rows"
echo "median of $rounds, $events bids:"
# median NAME COLUMN: the median of one column of NAME's runs.
median() {
	awk -v q="$1" -v c="$2" '$1 == q {print $c}' "$WORK/runs.txt" | sort -n |
		awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]}'
}
for name in streamsql-view streamsql-sink duckdb; do
	cpu=$(median "$name" 2)
	[ -n "$cpu" ] || continue
	awk -v q="$name" -v c="$cpu" -v r="$(median "$name" 3)" -v n="$events" \
		'BEGIN {printf "%-15s cpu_s %6.2f  events/s per core %8.0f  peak_rss_mib %5d\n", q, c, n/c, r}'
done
