#!/bin/bash
# measure_rss.sh KILLED BIN TAG [SECONDS]: issue 13's RSS figure. Runs
# bench.RestoreSQL (taken from bench/restore.go) with BIN's `run` on a copy
# of the killed state directory KILLED (BenchmarkRestartAfterKill's
# -restart.dir), samples /proc/PID/status every second for SECONDS (75),
# then kills it and prints the peaks: gctrace's largest marked heap, VmHWM,
# VmRSS, RssAnon and RssFile, and the CPU seconds used.
set -eu
KILLED=$1; BIN=$2; TAG=$3; SECS=${4:-75}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
awk '/^const RestoreSQL = `/{f=1;next} f&&/^`/{exit} f' "$HERE/restore.go" > "$WORK/restore.sql"
cp -a "$KILLED" "$WORK/state"
GODEBUG=gctrace=1 "$BIN" run --state-dir "$WORK/state" "$WORK/restore.sql" > "$WORK/out" 2> "$WORK/err" &
PID=$!
hwm=0 anon=0 file=0 rss=0
for _ in $(seq "$SECS"); do
  sleep 1
  [ -r /proc/$PID/status ] || break
  while read -r k v _; do
    case $k in
      VmHWM:) hwm=$(( v > hwm ? v : hwm ));;
      VmRSS:) rss=$(( v > rss ? v : rss ));;
      RssAnon:) anon=$(( v > anon ? v : anon ));;
      RssFile:) file=$(( v > file ? v : file ));;
    esac
  done < /proc/$PID/status
done
cpu=$(awk '{print ($14+$15)/100}' /proc/$PID/stat)
kill -9 $PID; wait $PID 2>/dev/null || true
live=$(grep -o '[0-9]*->[0-9]*->[0-9]* MB' "$WORK/err" | awk -F'->' '{print $3+0}' | sort -n | tail -1)
echo "$TAG load $(cut -d' ' -f1 /proc/loadavg) max-live-heap ${live}MB VmHWM $((hwm/1024))MiB VmRSS-peak $((rss/1024))MiB RssAnon-peak $((anon/1024))MiB RssFile-peak $((file/1024))MiB CPU ${cpu}s"
grep -m1 "restored" "$WORK/err" || true
