# One rank of the PyTorch job of test/hw/torch_shim.sh (torchrun starts one
# per GPU). Runs all_reduce, all_gather_into_tensor, reduce_scatter_tensor,
# broadcast and all_to_all_single for float32, bfloat16 and float16 at sizes
# from 1 element to 256 MiB, eagerly and replayed from a captured CUDA
# graph, each several times back to back with no synchronisation between
# the calls. The inputs are small integers, so every result is exact in
# every dtype and sum order: each result is compared with the value it
# must have, and a checksum of its bytes is written to OUT.json (rank 0),
# so that a run with the shim can be compared bitwise with one without.
# Then times all_reduce (CUDA events, graph of ITERS calls) at sizes from
# 4 B to 256 MiB.
#
# Usage: torchrun --nproc-per-node 2 torch_shim.py OUT.json
import json
import os
import sys
import threading

import torch
import torch.distributed as dist

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16,
          "float16": torch.float16}
# Elements per rank: 1 element to 256 MiB of float32 (odd counts included).
COUNTS = [1, 7, 1000, 65536 + 3, 1 << 20, 16 << 20, 64 << 20]
REPEAT = 3  # calls back to back per check
ITERS = 20
TEARDOWN_S = 30  # seconds destroy_process_group may take


def pattern(n, rank, salt, dtype):
    # Integers in [0, 61) plus the rank: sums over 2..8 ranks stay below
    # 256, exact in bfloat16 (8-bit significand) and float16.
    i = torch.arange(n, device="cuda", dtype=torch.int64)
    return ((i * 7 + salt * 13) % 61 + rank).to(dtype)


def checksum(t):
    # Bitwise: the bytes as int16 words, weighted by position.
    w = t.contiguous().view(-1).view(torch.int16).to(torch.int64)
    pos = torch.arange(w.numel(), device="cuda", dtype=torch.int64) % 1009 + 1
    return int((w * pos).sum().item())


def cases(world, rank):
    """(name, count, dtype, make(salt) -> (run(), out tensor, expected))."""
    for dname, dt in DTYPES.items():
        for n in COUNTS:
            if n * torch.finfo(dt).bits // 8 > (256 << 20):
                continue

            def ar(salt, n=n, dt=dt):
                x = pattern(n, rank, salt, dt)
                want = sum(pattern(n, r, salt, dt).float() for r in range(world)).to(dt)
                return (lambda: dist.all_reduce(x)), x, want

            def ag(salt, n=n, dt=dt):
                x = pattern(n, rank, salt, dt)
                y = torch.empty(n * world, device="cuda", dtype=dt)
                want = torch.cat([pattern(n, r, salt, dt) for r in range(world)])
                return (lambda: dist.all_gather_into_tensor(y, x)), y, want

            def rs(salt, n=n, dt=dt):
                x = torch.cat([pattern(n, rank, salt + r, dt) for r in range(world)])
                y = torch.empty(n, device="cuda", dtype=dt)
                want = sum(pattern(n, r, salt + rank, dt).float()
                           for r in range(world)).to(dt)
                return (lambda: dist.reduce_scatter_tensor(y, x)), y, want

            def bc(salt, n=n, dt=dt):
                x = pattern(n, rank, salt, dt)
                want = pattern(n, 1 % world, salt, dt)
                return (lambda: dist.broadcast(x, src=1 % world)), x, want

            def a2a(salt, n=n, dt=dt):
                x = torch.cat([pattern(n, rank * world + r, salt, dt)
                               for r in range(world)])
                y = torch.empty_like(x)
                want = torch.cat([pattern(n, r * world + rank, salt, dt)
                                  for r in range(world)])
                return (lambda: dist.all_to_all_single(y, x)), y, want

            for cname, make in [("all_reduce", ar), ("all_gather", ag),
                                ("reduce_scatter", rs), ("broadcast", bc),
                                ("all_to_all", a2a)]:
                yield cname, n, dname, make


def run_case(make, graph):
    """REPEAT calls back to back (each on fresh inputs for the in-place
    ones, so that a call reading a later call's data is seen); returns the
    outputs and their expected values."""
    runs = [make(salt) for salt in range(REPEAT)]
    if graph:
        # Warm-up on a side stream (as torch.cuda.graphs asks), then capture
        # every call into one graph and replay it on fresh inputs.
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for run, _, _ in runs:
                run()
        torch.cuda.current_stream().wait_stream(s)
        torch.cuda.synchronize()
        runs = [make(salt) for salt in range(REPEAT)]
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for run, _, _ in runs:
                run()
        # Capturing ran nothing: the inputs are as made.
        torch.cuda.synchronize()
        dist.barrier()
        g.replay()
    else:
        for run, _, _ in runs:
            run()
    torch.cuda.synchronize()
    return runs


def main():
    out_path = sys.argv[1]
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    results, wrong = {}, 0
    for cname, n, dname, make in cases(world, rank):
        for graph in (False, True):
            mode = "graph" if graph else "eager"
            key = f"{cname} {dname} n={n} {mode}"
            try:
                runs = run_case(make, graph)
            except Exception as e:  # reported, counted, and the job goes on
                wrong += 1
                print(f"rank {rank}: {key}: ERROR {type(e).__name__}: {e}", flush=True)
                continue
            sums = []
            for i, (_, out, want) in enumerate(runs):
                if not torch.equal(out, want):
                    bad = (out != want).nonzero()
                    wrong += 1
                    print(f"rank {rank}: {key}: call {i}: WRONG at {bad.numel()} "
                          f"elements, first {bad[0].tolist()}", flush=True)
                sums.append(checksum(out))
            results[key] = sums
    # all_reduce latency, float32, in a graph of ITERS calls.
    lat = {}
    for nbytes in [4, 1 << 10, 8 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20]:
        x = torch.ones(nbytes // 4, device="cuda")
        for _ in range(3):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for _ in range(ITERS):
                dist.all_reduce(x)
        t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        g.replay()
        torch.cuda.synchronize()
        dist.barrier()
        t0.record()
        g.replay()
        t1.record()
        torch.cuda.synchronize()
        lat[nbytes] = t0.elapsed_time(t1) * 1000.0 / ITERS  # us per call
        # eager, ITERS calls back to back
        dist.barrier()
        t0.record()
        for _ in range(ITERS):
            dist.all_reduce(x)
        t1.record()
        torch.cuda.synchronize()
        lat[f"{nbytes} eager"] = t0.elapsed_time(t1) * 1000.0 / ITERS
    # Gather every rank's wrong count so rank 0's verdict covers the job.
    t = torch.tensor([wrong], device="cuda")
    dist.all_reduce(t)
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"world": world, "wrong": int(t.item()),
                       "checksums": results, "allreduce_us": lat}, f, indent=1)
        print(f"torch_shim: {len(results)} checks, {int(t.item())} wrong", flush=True)
    code = 0 if int(t.item()) == 0 else 1
    # Teardown. PyTorch 2.11 with its own NCCL did not return from
    # destroy_process_group for minutes after this job (2 x H200,
    # test/hw/results/h200x2-torch-2026-11-27b): the results are written by then,
    # so a teardown that hangs is reported and the process leaves without it.
    done = threading.Event()

    def teardown():
        dist.destroy_process_group()
        done.set()

    threading.Thread(target=teardown, daemon=True).start()
    if not done.wait(TEARDOWN_S):
        print(f"rank {rank}: destroy_process_group did not return in "
              f"{TEARDOWN_S} s; exiting without it", flush=True)
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
