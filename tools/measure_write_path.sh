#!/usr/bin/env bash
# The write path's same-run figures (BENCHMARKS.md, The write path):
# MakeMove against the bare commit rate and health on SQLite, the old build
# beside it, the live games' memory, and PostgreSQL with 1, 2 and 3
# replicas. Servers on 127.0.0.1:50071-50084; SQLite files under /tmp/wp;
# a database `arbiter_load` on the local PostgreSQL (dropped and created).
#
# usage: [STEPS=sqlite,live,pg] tools/measure_write_path.sh NEW_DIR OLD_ARBITER
#   NEW_DIR: holds the release `arbiter` and `arbiter-load` to measure
#   OLD_ARBITER: the previous build's `arbiter`, measured beside it
#   STEPS: the steps to run (all three by default)
set -u
T=${1:?NEW_DIR}; OLD=${2:?OLD_ARBITER}
STEPS=,${STEPS:-sqlite,live,pg},
step() { [[ $STEPS == *,$1,* ]]; }
D=/tmp/wp; rm -rf $D; mkdir -p $D
L="$T/arbiter-load --duration 5 --warmup 1"
. "$(dirname "$0")/load_servers.sh"
if step sqlite; then
echo "== SQLite: raw-commit, health, make-move (new), make-move (previous build) at 1/16/64"
start $T/arbiter 50071 sqlite://$D/new.db --metrics-listen 127.0.0.1:50072
start $OLD 50073 sqlite://$D/old.db
for c in 1 16 64; do
  echo "-- $c in flight  (load: $(cut -d' ' -f1 /proc/loadavg))"
  $L --rpc raw-commit --concurrency $c --raw-database sqlite://$D/scratch.db
  $L --addr http://127.0.0.1:50071 --rpc health --concurrency $c
  $L --addr http://127.0.0.1:50071 --rpc make-move --concurrency $c
  $L --addr http://127.0.0.1:50073 --rpc make-move --concurrency $c
  $L --addr http://127.0.0.1:50071 --rpc make-move --concurrency $c
  $L --addr http://127.0.0.1:50073 --rpc make-move --concurrency $c
done
curl -s 127.0.0.1:50072/metrics | grep -E '^arbiter_store_commit_batch_size_(sum|count)'
stop 50073
echo "== RSS with the live games cache full (10,000 games)"
pid=$(cat $D/pid-50071)
echo "after the runs above: $(curl -s 127.0.0.1:50072/metrics | awk '/^arbiter_games_live /{print $2}') live, $(grep VmRSS /proc/$pid/status)"
stop 50071
fi
if step live; then
echo "-- the same load on a server with the cache (the defaults) and one without (--live-games 0), until the cache holds 10,000 games"
start $T/arbiter 50071 sqlite://$D/rss.db --metrics-listen 127.0.0.1:50072
start $T/arbiter 50075 sqlite://$D/rss0.db --live-games 0
pid=$(cat $D/pid-50071); pid0=$(cat $D/pid-50075)
echo "fresh: $(grep VmRSS /proc/$pid/status) / $(grep VmRSS /proc/$pid0/status)"
for i in $(seq 15); do
  $T/arbiter-load --addr http://127.0.0.1:50071 --rpc make-move --start-ply 30 --concurrency 16 --duration 4 --warmup 0 | tail -1
  $T/arbiter-load --addr http://127.0.0.1:50075 --rpc make-move --start-ply 30 --concurrency 16 --duration 4 --warmup 0 | tail -1
  live=$(curl -s 127.0.0.1:50072/metrics | awk '/^arbiter_games_live /{print $2}')
  bytes=$(curl -s 127.0.0.1:50072/metrics | awk '/^arbiter_games_live_bytes /{print $2}')
  echo "live games $live ($bytes bytes counted): $(grep VmRSS /proc/$pid/status) with the cache, $(grep VmRSS /proc/$pid0/status) without"
  [ "${live%.*}" -ge 10000 ] 2>/dev/null && break
done
stop 50071; stop 50075
fi
if step pg; then
echo "== PostgreSQL: raw-commit, make-move with 1, 2, 3 replicas"
PG=postgres://postgres@127.0.0.1:5432
psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS arbiter_load" -c "CREATE DATABASE arbiter_load"
for c in 1 16 64; do $L --rpc raw-commit --concurrency $c --raw-database $PG/arbiter_load; done
start $T/arbiter 50081 $PG/arbiter_load
start $T/arbiter 50082 $PG/arbiter_load
start $T/arbiter 50083 $PG/arbiter_load
A=http://127.0.0.1:50081; B=http://127.0.0.1:50082; C=http://127.0.0.1:50083
for c in 1 16 64; do
  echo "-- $c in flight (load: $(cut -d' ' -f1 /proc/loadavg))"
  $L --addr $A --rpc make-move --concurrency $c
  $L --addr $A,$B --rpc make-move --concurrency $c
  $L --addr $A,$B,$C --rpc make-move --concurrency $c
done
stop 50081; stop 50082; stop 50083
start $OLD 50084 $PG/arbiter_load
for c in 1 16 64; do $L --addr http://127.0.0.1:50084 --rpc make-move --concurrency $c; done
stop 50084
fi
echo "== done"; uptime
