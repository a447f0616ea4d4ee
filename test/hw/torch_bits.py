"""Same bits on every rank: PyTorch all_reduce through libcclnccl.so.

Run by test/hw/bits.sh under torchrun, every rank on GPU 0 (the shim lets
ranks share a GPU; PyTorch's own NCCL does not). Each rank fills a tensor
with random finite values of mixed sign and magnitude (its own seed), calls
dist.all_reduce on it K times back to back (each call on a fresh copy of
the same data) and saves the results; rank 0 then compares every rank's
results bit for bit with rank 0's and with a float64 sum (a wrong value is
one further from it than the rounding of an n-term sum allows). Prints one
line per dtype and size: elements whose bits differ between ranks, and
wrong elements. Exit status 1 if any differ or any is wrong.

With --invariance (run with CCL_DETERMINISTIC=1 for the deterministic
table, and without it as the control) it also checks that results do not
depend on the message size: each rank's inputs are a prefix of one fixed
random tensor, so row j of a batch of 1, 3 or 64 rows of HIDDEN elements
holds the same inputs in every batch, and the first 1024 elements of a
1 Mi-element call the same as a 1024-element call; every rank compares its
own results across those calls bit for bit. Prints the elements that
differ; with --expect-invariant, any difference fails.

  torchrun --nproc-per-node N torch_bits.py OUTDIR [--invariance [--expect-invariant]]
"""
import os
import sys

import torch
import torch.distributed as dist

SIZES = [1, 3, 1000, 1024, 65536, 1 << 20, 4 << 20]
HIDDEN = 4096
BATCHES = [1, 3, 64]
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
K = 4


def data(n, rank, salt, dtype):
    g = torch.Generator(device="cuda")
    g.manual_seed(1000003 * rank + 7919 * salt + n)
    mag = torch.pow(2.0, torch.randint(-6, 6, (n,), generator=g, device="cuda").float())
    x = torch.randn(n, generator=g, device="cuda") * mag
    return x.to(dtype)


def prefix_data(n, rank, dtype):
    # The first n elements of one fixed tensor per rank (and type).
    g = torch.Generator(device="cuda")
    g.manual_seed(4242 + 1000003 * rank)
    m = max(n, 1 << 20)
    mag = torch.pow(2.0, torch.randint(-6, 6, (m,), generator=g, device="cuda").float())
    x = torch.randn(m, generator=g, device="cuda") * mag
    return x[:n].to(dtype).contiguous()


def invariance(rank):
    """(label, elements that differ) per check, on this rank."""
    out = []
    for dt in DTYPES:
        name = str(dt).replace("torch.", "")
        res = {}
        for b in BATCHES:
            t = prefix_data(b * HIDDEN, rank, dt)
            dist.all_reduce(t)
            res[b] = t
        torch.cuda.synchronize()
        big = res[BATCHES[-1]]
        for b in BATCHES[:-1]:
            a = res[b].view(torch.int16 if res[b].element_size() == 2 else torch.int32)
            c = big[: b * HIDDEN].view(a.dtype)
            out.append(("%s batch %d vs %d rows of %d" % (name, b, BATCHES[-1], HIDDEN),
                        int((a != c).sum())))
        small = prefix_data(1024, rank, dt)
        large = prefix_data(1 << 20, rank, dt)
        dist.all_reduce(small)
        dist.all_reduce(large)
        torch.cuda.synchronize()
        a = small.view(torch.int16 if small.element_size() == 2 else torch.int32)
        c = large[:1024].view(a.dtype)
        out.append(("%s 1024 vs first 1024 of 1Mi" % name, int((a != c).sum())))
    return out


def barrier():
    # A float32 all_reduce (served by the bundle; dist.barrier's would be
    # forwarded to NCCL, which refuses ranks that share a GPU).
    t = torch.zeros(1, device="cuda")
    dist.all_reduce(t)
    torch.cuda.synchronize()


def main():
    out = sys.argv[1]
    torch.cuda.set_device(0)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    os.makedirs(out, exist_ok=True)
    cases = [(dt, n) for dt in DTYPES for n in SIZES]
    for ci, (dt, n) in enumerate(cases):
        inputs = [data(n, rank, ci * K + k, dt) for k in range(K)]
        bufs = [x.clone() for x in inputs]
        for b in bufs:  # back to back, no synchronisation between calls
            dist.all_reduce(b)
        torch.cuda.synchronize()
        torch.save({"in": [x.cpu() for x in inputs], "out": [b.cpu() for b in bufs]},
                   os.path.join(out, "r%d_c%d.pt" % (rank, ci)))
    barrier()
    status = 0
    if rank == 0:
        for ci, (dt, n) in enumerate(cases):
            res = [torch.load(os.path.join(out, "r%d_c%d.pt" % (r, ci))) for r in range(world)]
            differ = wrong = 0
            for k in range(K):
                ref = res[0]["out"][k]
                bits = ref.view(torch.int16 if ref.element_size() == 2 else torch.int32)
                for r in range(1, world):
                    other = res[r]["out"][k].view(bits.dtype)
                    differ += int((other != bits).sum())
                exact = sum(res[r]["in"][k].double() for r in range(world))
                scale = sum(res[r]["in"][k].double().abs() for r in range(world))
                eps = {torch.float32: 2.0 ** -23, torch.bfloat16: 2.0 ** -7,
                       torch.float16: 2.0 ** -10}[dt]
                # n-term sum rounded at every step, then stored: world * eps
                # of the magnitudes' sum, plus the tiny ones (float16's
                # subnormals).
                tol = world * eps * scale + 1e-6
                wrong += int(((ref.double() - exact).abs() > tol).sum())
            print("%-9s %8d elements x %d calls: %d differ between ranks, %d wrong"
                  % (str(dt).replace("torch.", ""), n, K, differ, wrong), flush=True)
            if differ or wrong:
                status = 1
    if "--invariance" in sys.argv:
        checks = invariance(rank)
        torch.save(checks, os.path.join(out, "inv_r%d.pt" % rank))
        barrier()
        if rank == 0:
            for r in range(world):
                for label, n in torch.load(os.path.join(out, "inv_r%d.pt" % r)):
                    print("invariance rank %d: %s: %d elements differ" % (r, label, n), flush=True)
                    if n and "--expect-invariant" in sys.argv:
                        status = 1
    if rank == 0:
        print("torch_bits: %d ranks on GPU 0: %s" % (world, "OK" if status == 0 else "FAILED"))
    barrier()
    dist.destroy_process_group()
    sys.exit(status)


if __name__ == "__main__":
    main()
