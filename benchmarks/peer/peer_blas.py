"""The BLAS under the PyTorch peer, checked before it is timed.

Debian's python3-torch links the system's libblas.so.3, and installed alone (apt-get install python3-torch) that is
the reference BLAS (libblas3): on the benchmark machine its float32 product ran at 6.5 GFLOP/s on one thread against
OpenBLAS's 142, and the MLP training step took 73 ms instead of 1.9 (2026-11-27), so every ratio against such a peer
measures the BLAS, not ntk4j. Which library answers is not told by what is mapped (Debian's torch maps OpenBLAS
through LAPACK while its products may still go to the reference BLAS), so check() times one: a 256x256 product on one
thread below MIN_GFLOPS stops the peer with one line. Any optimised BLAS of the last decade runs it several times
faster than that on one core, loaded or not; PyTorch's wheels (MKL inside libtorch_cpu) pass. PEER_SLOW_BLAS_OK=1
runs it anyway (e.g. a smoke run where only the code path matters).

set_threads() gives the peer the thread count it is told: torch.set_num_threads sets OpenMP's and MKL's, but an
OpenBLAS under Debian's torch keeps its own pool of one thread per core (measured 2026-11-27 on 2 cores: with
torch.set_num_threads(1) a 128x784x512 product took 270 us of wall and 539 us of process CPU time; with OpenBLAS held
to one thread 475 us of both), so a "one-thread" peer ran its products on every core, and on a machine with more
cores than --threads every peer ran them on all of them.
"""
import ctypes
import os
import sys
import time

MIN_GFLOPS = 25.0


def gflops():
    """float32 GFLOP/s of torch's 256x256 matrix product on one thread (best of three)."""
    import torch

    threads = torch.get_num_threads()
    set_threads(1)
    try:
        a = torch.rand(256, 256)
        b = torch.rand(256, 256)
        _ = a @ b
        best = float("inf")
        for _ in range(3):
            t = time.perf_counter()
            _ = a @ b
            best = min(best, time.perf_counter() - t)
    finally:
        set_threads(threads)
    return 2 * 256 ** 3 / best / 1e9


def openblas():
    """The OpenBLAS library this process has loaded (ctypes), or None."""
    try:
        with open("/proc/self/maps") as f:
            paths = {line.split()[-1] for line in f if "libopenblas" in line}
    except OSError:
        return None
    for p in sorted(paths):
        try:
            lib = ctypes.CDLL(p)
            lib.openblas_set_num_threads
            return lib
        except (OSError, AttributeError):
            continue
    return None


def set_threads(n):
    """torch's intra-op threads and, under an OpenBLAS, its threads too: n in all (see the module comment)."""
    import torch

    torch.set_num_threads(n)
    lib = openblas()
    if lib is not None:
        lib.openblas_set_num_threads(ctypes.c_int(n))


def check():
    """Exits 2 with one line when torch's CPU matrix product is the reference BLAS's (unless PEER_SLOW_BLAS_OK)."""
    if os.environ.get("PEER_SLOW_BLAS_OK"):
        return
    g = gflops()
    if g < MIN_GFLOPS:
        print(f"peer: torch's float32 matrix product runs at {g:.1f} GFLOP/s on one thread (an optimised BLAS: "
              f"well over {MIN_GFLOPS:.0f}), the reference BLAS's speed, so a ratio against this peer would measure "
              "it; install OpenBLAS (Debian: apt-get install libopenblas0-pthread) or set PEER_SLOW_BLAS_OK=1",
              file=sys.stderr)
        sys.exit(2)


def _product_times(reps=300):
    """(wall, process CPU) µs of one 128x784 by 784x512 float32 product, mean of reps after a warm-up."""
    import torch

    x = torch.rand(128, 784)
    w = torch.rand(512, 784)
    for _ in range(30):
        x.matmul(w.t())
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(reps):
        x.matmul(w.t())
    return (time.perf_counter() - w0) / reps * 1e6, (time.process_time() - c0) / reps * 1e6


if __name__ == "__main__":
    # Shows what set_threads() is for: wall and process CPU time of one product of the MLP training step with
    # torch.set_num_threads(1) alone, then with set_threads(1) (OpenBLAS held to one thread too), then set_threads(2).
    #   OPENBLAS_CORETYPE=SkylakeX OMP_WAIT_POLICY=PASSIVE /usr/bin/python3 benchmarks/peer/peer_blas.py
    import torch

    print(f"OpenBLAS loaded: {openblas() is not None}; one-thread 256x256 product {gflops():.0f} GFLOP/s")
    lib = openblas()
    cores = os.cpu_count() or 1

    def only_torch(n):
        torch.set_num_threads(n)
        if lib is not None:
            lib.openblas_set_num_threads(ctypes.c_int(cores))  # OpenBLAS's own default: every core

    for label, apply in (("set_threads(1)", lambda: set_threads(1)),
                         ("torch.set_num_threads(1) only", lambda: only_torch(1)),
                         ("set_threads(2)", lambda: set_threads(2))):
        apply()
        time.sleep(0.5)  # OpenBLAS's idle threads spin a while after their last product before they sleep
        wall, cpu = _product_times()
        print(f"{label:32s} wall {wall:7.1f} us, process CPU {cpu:7.1f} us")
