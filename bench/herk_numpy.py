"""numpy's Gram product at the dev shape, the peer of BenchmarkCherkDev.

a is complex64 (M = 128, K = 400000); times a.conj() @ a.T (what matvis's
CPU backend computes), best and median of repeats, and reports which BLAS
kernel numpy runs (threadpoolctl). Run with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset (see bench/RESULTS.md).
"""
import statistics
import sys
import time

import numpy as np

M, K = 128, 400_000
rng = np.random.default_rng(1)
a = (rng.standard_normal((M, K), dtype=np.float32)
     + 1j * rng.standard_normal((M, K), dtype=np.float32)).astype(np.complex64)
a.conj() @ a.T  # thread pool start-up
ts = []
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 10):
    t = time.perf_counter()
    a.conj() @ a.T
    ts.append(time.perf_counter() - t)
try:
    from threadpoolctl import threadpool_info
    info = [(i.get("internal_api"), i.get("version"), i.get("architecture"), i.get("num_threads")) for i in threadpool_info()]
except ImportError:
    info = "threadpoolctl not installed"
print(f"numpy {np.__version__}; BLAS {info}")
print(f"a.conj() @ a.T, complex64 ({M}, {K}): best {min(ts)*1e3:.1f} ms, median {statistics.median(ts)*1e3:.1f} ms, "
      f"{8*M*M*K/min(ts)/1e9:.1f} GFLOP/s (8M²K, best)")
