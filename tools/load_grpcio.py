#!/usr/bin/env python3
"""Closed-loop load on Rules.LegalMoves from Python grpcio, which decodes
every answer into its generated messages, as a Python client does.

Keeps --concurrency requests in flight (asyncio tasks, each sending its next
request when the previous one is answered) over one channel, for --warmup
unmeasured seconds and then --duration measured ones, and prints one line:
requests answered in the measured window, errors, requests per second, and
the p50 and p99 latency in milliseconds. The positions are those of
`arbiter-load --position` (src/bin/arbiter-load/main.rs).

    python3 -m venv .venv
    .venv/bin/pip install -r tools/requirements-walkthrough.txt
    .venv/bin/python tools/load_grpcio.py --addr 127.0.0.1:50051 \\
        --variant xiangqi --position middlegame --concurrency 16
"""

import argparse
import asyncio
import sys
import time

import grpc

from walkthrough import load_stubs

# variant -> position -> (FEN, moves played from it); "" is the start.
POSITIONS = {
    "chess": {
        "start": ("", []),
        "middlegame": (
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            ["h3", "Bh5", "Nd5", "Nxd5", "Bxd5"],
        ),
    },
    "xiangqi": {
        "start": ("", []),
        "middlegame": (
            "r1b1kabnr/4a4/1cn4c1/p1p1p1pCp/9/9/P1P1P1P1P/NC7/R8/R1BAKABN1 w - - 20 11",
            ["h0g2", "h9g7", "a1d1", "i9i8", "b2e2"],
        ),
    },
}


def quantile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


async def drive(call, request, start, end, latencies, errors):
    """One task: requests back to back until the window ends."""
    while True:
        began = time.monotonic()
        if began >= end:
            return
        try:
            answer = await call(request)
            ok = len(answer.moves) > 0
        except grpc.aio.AioRpcError:
            ok = False
        finished = time.monotonic()
        if began >= start and finished <= end:
            if ok:
                latencies.append(finished - began)
            else:
                errors.append(began)


async def measure(args, pb):
    fen, moves = POSITIONS[args.variant][args.position]
    variant = {"chess": pb["common_pb2"].VARIANT_CHESS, "xiangqi": pb["common_pb2"].VARIANT_XIANGQI}
    request = pb["rules_pb2"].LegalMovesRequest(
        position=pb["common_pb2"].Position(variant=variant[args.variant], fen=fen, moves=moves),
        detail=pb["rules_pb2"].MOVE_DETAIL_FULL,
    )
    async with grpc.aio.insecure_channel(args.addr) as channel:
        call = pb["rules_pb2_grpc"].RulesStub(channel).LegalMoves
        if not (await call(request, timeout=5)).moves:
            sys.exit("LegalMoves answered no moves")
        start = time.monotonic() + args.warmup
        end = start + args.duration
        latencies, errors = [], []
        tasks = [drive(call, request, start, end, latencies, errors) for _ in range(args.concurrency)]
        await asyncio.gather(*tasks)
    latencies.sort()
    print(
        f"grpcio legal-moves ({args.variant} {args.position}) in_flight={args.concurrency} "
        f"requests={len(latencies) + len(errors)} errors={len(errors)} "
        f"rps={len(latencies) / args.duration:.0f} "
        f"p50_ms={quantile(latencies, 0.5) * 1e3:.3f} p99_ms={quantile(latencies, 0.99) * 1e3:.3f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--addr", default="127.0.0.1:50051")
    parser.add_argument("--variant", choices=POSITIONS, default="chess")
    parser.add_argument("--position", choices=["start", "middlegame"], default="middlegame")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    args = parser.parse_args()
    if args.concurrency < 1 or args.duration <= 0 or args.warmup < 0:
        sys.exit("--concurrency must be at least 1, --duration above 0, --warmup not below 0")
    asyncio.run(measure(args, load_stubs()))


if __name__ == "__main__":
    main()
