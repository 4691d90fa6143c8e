#!/usr/bin/env bash
# Several builds' MakeMove side by side, same run (BENCHMARKS.md, The write
# path): on SQLite (with the bare commit rate and health) and on PostgreSQL
# (one replica each, with the one-connection commit rate), at 1, 16 and 64
# in flight, two runs of each build alternated. Servers on
# 127.0.0.1:50091-50119; SQLite files under /tmp/wpx/run; databases
# arbiter_cmp* on the local PostgreSQL (created and dropped).
#
# usage: tools/measure_write_builds.sh ARBITER_LOAD NAME=ARBITER...
set -u
LOADBIN=$1; shift
D=/tmp/wpx/run; rm -rf $D; mkdir -p $D
L="$LOADBIN --duration 5 --warmup 1"
. "$(dirname "$0")/load_servers.sh"
names=(); bins=(); for a in "$@"; do names+=("${a%%=*}"); bins+=("${a#*=}"); done
echo "== SQLite"
port=50091; for i in "${!bins[@]}"; do start ${bins[$i]} $((port+i)) sqlite://$D/$i.db --metrics-listen 127.0.0.1:$((port+20+i)); done
for c in 1 16 64; do
  echo "-- $c in flight (load: $(cut -d' ' -f1 /proc/loadavg))"
  echo "raw-commit: $($L --rpc raw-commit --concurrency $c --raw-database sqlite://$D/scratch.db | tail -1)"
  echo "health: $($L --addr http://127.0.0.1:$port --rpc health --concurrency $c | tail -1)"
  for r in 1 2; do for i in "${!bins[@]}"; do
    echo "${names[$i]} run $r: $($L --addr http://127.0.0.1:$((port+i)) --rpc make-move --concurrency $c | tail -1)"
  done; done
done
for i in "${!bins[@]}"; do echo "${names[$i]} batch: $(curl -s 127.0.0.1:$((port+20+i))/metrics | grep -E '^arbiter_store_commit_batch_size_(sum|count)' | tr '\n' ' ')"; stop $((port+i)); done
echo "== PostgreSQL, one replica each"
PG=postgres://postgres@127.0.0.1:5432
for i in "${!bins[@]}"; do psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS arbiter_cmp$i" -c "CREATE DATABASE arbiter_cmp$i"; done
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS arbiter_cmpraw" -c "CREATE DATABASE arbiter_cmpraw"
for i in "${!bins[@]}"; do start ${bins[$i]} $((port+i)) $PG/arbiter_cmp$i; done
for c in 1 16 64; do
  echo "-- $c in flight (load: $(cut -d' ' -f1 /proc/loadavg))"
  echo "raw-commit (1 connection): $($L --rpc raw-commit --concurrency 1 --raw-database $PG/arbiter_cmpraw | tail -1)"
  for r in 1 2; do for i in "${!bins[@]}"; do
    echo "${names[$i]} run $r: $($L --addr http://127.0.0.1:$((port+i)) --rpc make-move --concurrency $c | tail -1)"
  done; done
done
for i in "${!bins[@]}"; do stop $((port+i)); done
for i in "${!bins[@]}"; do psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS arbiter_cmp$i"; done
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS arbiter_cmpraw"
echo "== done"; uptime
