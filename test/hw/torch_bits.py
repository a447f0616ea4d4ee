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

  torchrun --nproc-per-node N torch_bits.py OUTDIR
"""
import os
import sys

import torch
import torch.distributed as dist

SIZES = [1, 3, 1000, 1024, 65536, 1 << 20, 4 << 20]
DTYPES = [torch.float32, torch.bfloat16, torch.float16]
K = 4


def data(n, rank, salt, dtype):
    g = torch.Generator(device="cuda")
    g.manual_seed(1000003 * rank + 7919 * salt + n)
    mag = torch.pow(2.0, torch.randint(-6, 6, (n,), generator=g, device="cuda").float())
    x = torch.randn(n, generator=g, device="cuda") * mag
    return x.to(dtype)


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
        print("torch_bits: %d ranks on GPU 0: %s" % (world, "OK" if status == 0 else "FAILED"))
    barrier()
    dist.destroy_process_group()
    sys.exit(status)


if __name__ == "__main__":
    main()
