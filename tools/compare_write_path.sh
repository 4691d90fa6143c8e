#!/usr/bin/env bash
# Two builds side by side on the write path (BENCHMARKS.md, The write path;
# measure_write_builds.sh takes any number of builds, without the series at
# 1 in flight):
# chess MakeMove on SQLite at 1, 16 and 64 in flight, the builds alternated
# twice at each step, beside the bare commit rate and health; eight more
# alternated runs at 1 in flight; then PostgreSQL, one replica each, at 64.
# Servers on 127.0.0.1:50071-50083; SQLite files under /tmp/wpc; databases
# wpc_new, wpc_old and wpc_raw on the local PostgreSQL (dropped and created).
#
# usage: tools/compare_write_path.sh NEW_DIR OLD_ARBITER
#   NEW_DIR: holds the release `arbiter` and `arbiter-load` to measure
#   OLD_ARBITER: the other build's `arbiter`
set -u
T=${1:?NEW_DIR}; OLD=${2:?OLD_ARBITER}; NEW=$T/arbiter
D=/tmp/wpc; rm -rf $D; mkdir -p $D
L="$T/arbiter-load --duration 5 --warmup 1"
. "$(dirname "$0")/load_servers.sh"
moves() { echo "$1: $($L --addr http://127.0.0.1:$2 --rpc make-move --concurrency $3 | tail -1)"; }
echo "== SQLite"
start $NEW 50071 sqlite://$D/new.db --metrics-listen 127.0.0.1:50072
start $OLD 50073 sqlite://$D/old.db
for c in 1 16 64; do
  echo "-- $c in flight  (load: $(cut -d' ' -f1 /proc/loadavg))"
  $L --rpc raw-commit --concurrency $c --raw-database sqlite://$D/scratch.db | tail -1
  $L --addr http://127.0.0.1:50071 --rpc health --concurrency $c | tail -1
  for r in 1 2; do moves new 50071 $c; moves old 50073 $c; done
done
curl -s 127.0.0.1:50072/metrics | grep -E '^arbiter_store_commit_batch_size_(sum|count)|^arbiter_log_lines_dropped'
echo "-- 1 in flight, alternated  (load: $(cut -d' ' -f1 /proc/loadavg))"
for r in 1 2 3 4; do moves new 50071 1; moves old 50073 1; moves old 50073 1; moves new 50071 1; done
stop 50071; stop 50073
echo "== PostgreSQL, one replica each, 64 in flight"
PG=postgres://postgres@127.0.0.1:5432
for db in wpc_new wpc_old wpc_raw; do
  psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
done
$L --rpc raw-commit --concurrency 1 --raw-database $PG/wpc_raw | tail -1
start $NEW 50081 $PG/wpc_new
start $OLD 50083 $PG/wpc_old
for r in 1 2; do moves new 50081 64; moves old 50083 64; done
$L --rpc raw-commit --concurrency 1 --raw-database $PG/wpc_raw | tail -1
stop 50081; stop 50083
uptime
