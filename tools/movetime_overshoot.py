#!/usr/bin/env python3
"""How far past `go movetime N` Arbiter answers: plays 60 moves of a game
against itself from the start, timing each `go` to its `bestmove` (pipe and
Python latency included).

    python3 tools/movetime_overshoot.py chess|xiangqi MILLISECONDS
"""
import subprocess, time, sys, statistics
variant = sys.argv[1]
movetime = int(sys.argv[2])
p = subprocess.Popen(["target/release/arbiter", "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def send(s): p.stdin.write(s + "\n"); p.stdin.flush()
send("uci"); send(f"setoption name UCI_Variant value {variant}"); send("isready")
while p.stdout.readline().strip() != "readyok": pass
moves = []
times = []
for i in range(60):
    send("position startpos moves " + " ".join(moves))
    send("isready")
    while p.stdout.readline().strip() != "readyok": pass
    t = time.perf_counter()
    send(f"go movetime {movetime}")
    while True:
        line = p.stdout.readline().strip()
        if line.startswith("bestmove"):
            break
    times.append((time.perf_counter() - t) * 1000)
    moves.append(line.split()[1])
send("quit")
times.sort()
print(f"{variant} movetime {movetime}: n={len(times)} median {statistics.median(times):.1f} ms, p90 {times[int(len(times)*0.9)]:.1f}, max {max(times):.1f} ms, over by at most {max(times)-movetime:.1f} ms")
