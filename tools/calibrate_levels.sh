#!/usr/bin/env bash
# Measures Arbiter's chess levels against Stockfish with UCI_LimitStrength
# at a fixed UCI_Elo per level (1350, its weakest, for levels 1-5).
#
#   tools/calibrate_levels.sh [ENGINE_COMMAND] [GAMES] [OUT_DIR]
#
# Defaults: "target/release/arbiter uci", 20 games per pairing, ./calibration;
# CONCURRENCY (default 2) games are played at once.
# Every pairing writes <OUT_DIR>/<name>.log (the score line is the last
# "Score of" line) and <OUT_DIR>/<name>.pgn. 100 ms per move: run it on an
# otherwise quiet machine.
set -euo pipefail
engine=${1:-target/release/arbiter uci}
games=${2:-20}
out=${3:-calibration}
here=$(dirname "$0")
mkdir -p "$out"

pairing() {
  local name=$1
  shift
  python3 "$here/match.py" --variant chess --movetime 100 --games "$games" \
    --concurrency "${CONCURRENCY:-2}" --pgn "$out/$name.pgn" "$@" >"$out/$name.log" 2>&1
  echo "$name: $(grep 'Score of' "$out/$name.log")"
}

stockfish_at() {
  echo --opponent stockfish --opponent-option UCI_LimitStrength=true \
    --opponent-option "UCI_Elo=$1"
}

# Each level against a Stockfish strength it scores between about 5% and
# 95% against (outside that the Elo estimate is only a bound).
for level in 1 2 3 4 5; do
  # shellcheck disable=SC2046
  pairing "level$level-vs-sf1350" --engine "$engine" --engine-option "Level=$level" \
    $(stockfish_at 1350)
done
for level in 6 7; do
  # shellcheck disable=SC2046
  pairing "level$level-vs-sf1800" --engine "$engine" --engine-option "Level=$level" \
    $(stockfish_at 1800)
done
for level in 8 9; do
  # shellcheck disable=SC2046
  pairing "level$level-vs-sf2000" --engine "$engine" --engine-option "Level=$level" \
    $(stockfish_at 2000)
done
