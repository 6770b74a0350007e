#!/bin/sh
# bench/viewcost/run.sh [EVENTS] [ROUNDS]: issue 13's stored-view cost.
# Runs bench/viewcost/view.sql (materialized view + file sink) and
# sink.sql (the same query as CREATE SINK ... AS, no view) over the same
# JSON-lines bids, alternating, and prints CPU seconds (user+sys) and
# peak RSS of each run (GNU time -v). PROFILE=1 also writes CPU and heap
# profiles of the view runs to $WORK/view.cpu and $WORK/view.mem.
set -eu
events=${1:-1000000}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
WORK=${WORK:-$(mktemp -d)}
bin=${STREAMSQL:-$WORK/streamsql}
[ -x "$bin" ] || (cd "$here/../.." && go build -o "$bin" ./cmd/streamsql)
bids=$WORK/bids-$events.jsonl
[ -f "$bids" ] || "$bin" bench --write-bids "$bids" --events "$events"
for i in $(seq "$rounds"); do
	for q in view sink; do
		rm -rf "$WORK/state" "$WORK/out.jsonl" "$WORK/out.jsonl".*
		sed -e "s|{{bids}}|$bids|" -e "s|{{out}}|$WORK/out.jsonl|" "$here/$q.sql" >"$WORK/$q.sql"
		prof=""
		if [ "$q" = view ] && [ "${PROFILE:-}" = 1 ]; then
			prof="--cpuprofile $WORK/view.cpu --memprofile $WORK/view.mem"
		fi
		# shellcheck disable=SC2086
		/usr/bin/time -v "$bin" run --state-dir "$WORK/state" $prof "$WORK/$q.sql" 2>"$WORK/time.txt" >/dev/null
		awk -v q="$q" -v rows="$(wc -l <"$WORK/out.jsonl")" '
			/User time/ {u=$NF} /System time/ {s=$NF} /Maximum resident/ {r=$NF}
			END {printf "%-5s cpu_s %.2f  rss_mib %d  sink_lines %d\n", q, u+s, r/1024, rows}' "$WORK/time.txt"
	done
done
