// gram_wg.cuh: gram_tc_f16's product (same Z, tiles, K split, partial
// tiles and reduction) on Hopper's warpgroup tensor-core instruction
// wgmma, which runs at about twice mma.sync's rate on an H100/H200 and
// reads its B operand straight from shared memory. sm_90a only: on other
// targets the kernel is compiled empty and package gram never launches it.
// Part of gram.cu (after gram_tc.cuh, whose copy helpers it uses).
//
// One warpgroup (4 warps) computes a 64×64 tile with m64n64k16 products:
// A (the tile's rows) from registers, loaded with ldmatrix, so that the
// imaginary part's operand (x, y) → (−y, x) is made in registers; B (the
// tile's columns) from shared memory through a matrix descriptor. With
// rows A = (x, y) and columns B = (x, y) per complex value, A·B is Re C and
// rot(A)·B, rot(x, y) = (−y, x), is Im C; each is three products of the
// split operands (small·big, big·small, big·big; tc_f16.cuh).
//
// A stage is WG_KT = 32 complex columns: 64 FP16 values, one 128-byte row
// per plane, so each plane of a stage is in the canonical 128-byte
// swizzled K-major layout wgmma reads (8-row atoms of 1024 bytes, the
// 16-byte chunk c of row r stored at chunk c ⊕ (r mod 8); the same layout
// makes the ldmatrix loads conflict-free). The tensor cores accumulate one
// stage, 12 products per FP16 pair, then it is added to the float32
// running sums, as gram_tc_f16 does.
#pragma once

#if !defined(WG_NSTAGE) || !defined(WG_MINB)
#error "gram_wg: WG_NSTAGE and WG_MINB come from package gram (-D)"
#endif
static_assert(TC_BT == 64 && TC_THREADS == 128, "gram_wg: one warpgroup per 64×64 tile");

#define WG_KT 32                     // complex columns per stage: 128 bytes of a plane row
#define WG_PLANE (TC_BT * 128)       // bytes of one plane of a stage (64 rows)
#define WG_STAGE (4 * WG_PLANE)      // rows' big, rows' small, columns' big, columns' small
// The dynamic shared memory, WG_NSTAGE stages and 1 KB to align the swizzle
// atoms, is package gram's wgShared.

// wg_swz is the byte offset of 16-byte chunk c of row r in a swizzled plane.
__device__ __forceinline__ unsigned wg_swz(int r, int c) { return r * 128 + ((c ^ (r & 7)) << 4); }

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

// wg_desc is the shared-memory matrix descriptor of a 128-byte-swizzled
// K-major operand starting at shared address a: leading offset 16 bytes
// (unused by swizzled K-major layouts), 1024 bytes between 8-row atoms,
// swizzle mode 1 (128 B) in bits 62–63. Fields in 16-byte units (PTX ISA,
// "Matrix Descriptor Format" of wgmma).
__device__ __forceinline__ unsigned long long wg_desc(unsigned a) {
  return (unsigned long long)((a & 0x3FFFF) >> 4) | (1ull << 16) | ((unsigned long long)(1024 >> 4) << 32) |
         (1ull << 62);
}

// wg_mma: d (+)= a·b for a 64×64×16 FP16 product, a from registers, b from
// shared memory; accumulate 0 overwrites d.
__device__ __forceinline__ void wg_mma(float d[32], const unsigned a[4], unsigned long long b, int accumulate) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "{%32, %33, %34, %35}, %36, p, 1, 1, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(accumulate));
}

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wg_wait(float re[32], float im[32]) {
  // The accumulators are operands so that no read of them moves above the wait.
#pragma unroll
  for (int i = 0; i < 32; i++) asm volatile("" : "+f"(re[i]), "+f"(im[i])::"memory");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#pragma unroll
  for (int i = 0; i < 32; i++) asm volatile("" : "+f"(re[i]), "+f"(im[i])::"memory");
}

// ldsm4 loads a 16×16 FP16 A fragment: lane l gives the address of row
// l mod 16's 16-byte chunk (chunk l / 16 of the k16 step).
__device__ __forceinline__ void ldsm4(unsigned a[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}

// rot_im turns (x, y) into (−y, x): swap the halves, flip the new low
// half's sign.
__device__ __forceinline__ unsigned rot_im(unsigned v) { return __byte_perm(v, 0, 0x1032) ^ 0x8000u; }

// wg_step issues one k16 step's six products (A fragments ab, as of the
// rows' big and small planes; B descriptors bb, bs) into re and im.
__device__ __forceinline__ void wg_step(float re[32], float im[32], const unsigned ab[4], const unsigned as[4],
                                        const unsigned rb[4], const unsigned rs[4], unsigned long long bb,
                                        unsigned long long bs, int accumulate) {
  wg_fence();
  wg_mma(re, as, bb, accumulate);
  wg_mma(im, rs, bb, accumulate);
  wg_mma(re, ab, bs, 1);
  wg_mma(im, rb, bs, 1);
  wg_mma(re, ab, bb, 1);
  wg_mma(im, rb, bb, 1);
  wg_commit();
}

// wg_frag loads the rows' A fragments of k16 step kk (big and small) and
// makes their rotations.
__device__ __forceinline__ void wg_frag(unsigned rows, int kk, unsigned ab[4], unsigned as[4], unsigned rb[4],
                                        unsigned rs[4]) {
  const int lane = threadIdx.x & 31, r = 16 * (threadIdx.x >> 5) + (lane & 15);
  const unsigned a = rows + wg_swz(r, 2 * kk + (lane >> 4));
  ldsm4(ab, a);
  ldsm4(as, a + WG_PLANE);
#pragma unroll
  for (int j = 0; j < 4; j++) rb[j] = rot_im(ab[j]), rs[j] = rot_im(as[j]);
}

// wg_stage multiplies one stage (rows at shared address rows, columns at
// cols; each the big plane then the small one) into the running sums.
__device__ __forceinline__ void wg_stage(float (&run_re)[32], float (&run_im)[32], unsigned rows, unsigned cols) {
  float re[32], im[32];
  unsigned f[2][4][4];  // double-buffered fragments: [buffer][big, small, rot big, rot small][register]
#pragma unroll
  for (int kk = 0; kk < WG_KT / 8; kk++) {
    unsigned(*x)[4] = f[kk & 1];
    wg_frag(rows, kk, x[0], x[1], x[2], x[3]);
    wg_step(re, im, x[0], x[1], x[2], x[3], wg_desc(cols + 32 * kk), wg_desc(cols + WG_PLANE + 32 * kk), kk > 0);
    // At most this step's products in flight: the other buffer is free.
    wg_wait<1>(re, im);
  }
  wg_wait<0>(re, im);
  frag_add(run_re, re);
  frag_add(run_im, im);
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// wg_load queues the copy of Z's columns k0 … k0+WG_KT−1 of rows r0 … and
// (unless diag) c0 … into the stage at st, swizzled: thread t copies
// chunk t mod 8 of rows t / 8 + 16j, so a warp reads four whole 128-byte
// row segments of a plane.
__device__ __forceinline__ void wg_load(unsigned char* st, const unsigned* __restrict__ z, long long ldz, int M, int K,
                                        int r0, int c0, int k0, bool diag) {
  const int c = threadIdx.x & 7, k = k0 + 4 * c;
  const int nb = 4 * max(0, min(4, K - k));
#pragma unroll
  for (int half = 0; half < 2; half++) {
    if (half && diag) break;
    const int base = half ? c0 : r0;
#pragma unroll
    for (int plane = 0; plane < 2; plane++) {
      unsigned char* dst = st + (2 * half + plane) * WG_PLANE;
#pragma unroll
      for (int j = 0; j < TC_BT / 16; j++) {
        const int r = (threadIdx.x >> 3) + 16 * j, row = base + r;
        const bool ok = row < M && nb > 0;
        cp_async16((unsigned*)(dst + wg_swz(r, c)), ok ? z + (2 * (long long)row + plane) * ldz + k : z, ok ? nb : 0);
      }
    }
  }
}

extern "C" __global__ void __launch_bounds__(TC_THREADS, WG_MINB)
    gram_wg_f16(const unsigned* __restrict__ z, long long ldz, int M, int K, const int2* __restrict__ tiles,
                int nsplit, float zscale, float2* __restrict__ part) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  extern __shared__ __align__(1024) unsigned char wg_sm[];
  // The swizzle atoms must sit on 1024-byte boundaries of the shared window.
  const unsigned base = smem_addr(wg_sm), pad = (1024 - (base & 1023)) & 1023;
  unsigned char* sm = wg_sm + pad;
  const int2 tile = tiles[blockIdx.x / nsplit];
  const int ti = tile.x, tj = tile.y, s = blockIdx.x % nsplit;
  const bool diag = ti == tj;
  const int r0 = ti * TC_BT, c0 = tj * TC_BT;
  const int nkt = (K + WG_KT - 1) / WG_KT;
  const int kt0 = (int)((long long)s * nkt / nsplit), kt1 = (int)((long long)(s + 1) * nkt / nsplit);
  const unsigned colHalf = diag ? 0 : 2 * WG_PLANE;  // a diagonal tile's columns are its rows

  float run_re[32], run_im[32];
  frag_zero(run_re);
  frag_zero(run_im);

  // As gram_tc_f16: WG_NSTAGE−1 stages in flight while one is multiplied;
  // past the barrier, stage kt is in shared memory and every product of
  // stage kt−1 has completed (wg_stage waits for them), so its buffer can
  // be refilled. The fence makes the copies visible to wgmma's reads.
#pragma unroll
  for (int i = 0; i < WG_NSTAGE - 1; i++) {
    if (kt0 + i < kt1) wg_load(sm + i * WG_STAGE, z, ldz, M, K, r0, c0, (kt0 + i) * WG_KT, diag);
    cp_async_commit();
  }
  for (int kt = kt0; kt < kt1; kt++) {
    cp_async_wait<WG_NSTAGE - 2>();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    const int next = kt + WG_NSTAGE - 1;
    if (next < kt1) wg_load(sm + ((next - kt0) % WG_NSTAGE) * WG_STAGE, z, ldz, M, K, r0, c0, next * WG_KT, diag);
    cp_async_commit();
    const unsigned st = smem_addr(sm + ((kt - kt0) % WG_NSTAGE) * WG_STAGE);
    wg_stage(run_re, run_im, st, st + colHalf);
  }
  // Accumulator 4j+q: row 16·warp + g + 8·(q/2), column 8j + 2·t4 + q%2.
  const int w = threadIdx.x >> 5, lane = threadIdx.x & 31, g = lane >> 2, t4 = lane & 3;
  const float unscale = 1.f / (zscale * zscale);  // exact: zscale is a power of two in 2^±60
  float2* out = part + (long long)blockIdx.x * TC_BT * TC_BT;
#pragma unroll
  for (int j = 0; j < 8; j++)
#pragma unroll
    for (int q = 0; q < 4; q++) {
      const int rr = 16 * w + g + 8 * (q >> 1), cc = 8 * j + 2 * t4 + (q & 1);
      if (r0 + rr < M && c0 + cc <= r0 + rr)
        out[rr + cc * TC_BT] = make_float2(run_re[4 * j + q] * unscale, run_im[4 * j + q] * unscale);
    }
#endif
}
