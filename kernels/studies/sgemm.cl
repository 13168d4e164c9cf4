// The SGEMM ladder of notebook 14: c = a . b in single precision, every matrix row-major,
// a m x k, b k x n, c m x n. Each rung keeps the one before it and adds one idea:
//
//   sgemm_naive    one work-item per element of c, every operand read from global memory
//   sgemm_tiled    (the exercise, kernels/sgemm_tiled.cl) T x T tiles of a and b in local memory
//   sgemm_rows     more work per work-item: each computes WPT rows of one column (register blocking)
//   sgemm_vector   vector loads: tiles filled with float4 reads, each work-item 8 rows x 4 columns
//   sgemm_param    every choice a build-time parameter (-D...), the space the tuner searches
//
// Dimension 0 of the range walks the columns of c, dimension 1 its rows. Every kernel handles any
// m, n and k (the parts of a tile outside the matrices count as zero); its global size is the
// number of work-groups it needs times its work-group shape (see each kernel's comment).

// One work-item per element: global (n, m) rounded up to the work-group shape, any shape.
__kernel void sgemm_naive(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k)
{
    const uint col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (uint j = 0; j < k; j++)
        sum += a[row * k + j] * b[j * n + col];
    c[row * n + col] = sum;
}

// sgemm_naive with the exercise's arguments (its two tiles unused): the kernel sgemm_tiled starts
// from, counted by the warp model and timed beside it on the same launches (notebook 14).
__kernel void sgemm_plain(__global const float *a, __global const float *b, __global float *c,
                          const uint m, const uint n, const uint k,
                          __local float *a_tile, __local float *b_tile)
{
    const uint col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n)
        return;
    float sum = 0.0f;
    for (uint j = 0; j < k; j++)
        sum += a[row * k + j] * b[j * n + col];
    c[row * n + col] = sum;
}


// More work per work-item. Work-groups of RS_TS x (RS_TS / RS_WPT): a RS_TS x RS_TS tile of c per
// work-group, each work-item RS_WPT of its rows (ly, ly + RS_TS / RS_WPT, ...) in one column. Every
// value a work-item reads from b's tile now serves RS_WPT multiply-adds, kept in registers.
// Global: (n rounded up to RS_TS, m rounded up to RS_TS, divided by RS_WPT).
#define RS_TS 32
#define RS_WPT 8
#define RS_RTS (RS_TS / RS_WPT)

__kernel __attribute__((reqd_work_group_size(RS_TS, RS_RTS, 1)))
void sgemm_rows(__global const float *a, __global const float *b, __global float *c,
                const uint m, const uint n, const uint k)
{
    __local float a_tile[RS_TS][RS_TS];
    __local float b_tile[RS_TS][RS_TS];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int col = get_group_id(0) * RS_TS + lx;
    const int row0 = get_group_id(1) * RS_TS;

    float acc[RS_WPT];
    for (int w = 0; w < RS_WPT; w++)
        acc[w] = 0.0f;

    for (int k0 = 0; k0 < (int)k; k0 += RS_TS) {
        for (int w = 0; w < RS_WPT; w++) {
            const int r = ly + w * RS_RTS;
            a_tile[r][lx] = (row0 + r < (int)m && k0 + lx < (int)k) ? a[(row0 + r) * k + k0 + lx] : 0.0f;
            b_tile[r][lx] = (k0 + r < (int)k && col < (int)n) ? b[(k0 + r) * n + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < RS_TS; j++) {
            const float bv = b_tile[j][lx];
            for (int w = 0; w < RS_WPT; w++)
                acc[w] += a_tile[ly + w * RS_RTS][j] * bv;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int w = 0; w < RS_WPT; w++) {
        const int row = row0 + ly + w * RS_RTS;
        if (row < (int)m && col < (int)n)
            c[row * n + col] = acc[w];
    }
}


// Four floats of row `row` from column `col` on (zero outside the rows x cols matrix at p): one
// vector read when all four are inside, one at a time at the right edge.
inline float4 four_of(__global const float *p, int row, int rows, int col, int cols)
{
    if (row >= rows || col >= cols)
        return (float4)(0.0f);
    if (col + 3 < cols)
        return vload4(0, p + row * cols + col);
    float4 v = (float4)(0.0f);
    v.x = p[row * cols + col];
    if (col + 1 < cols) v.y = p[row * cols + col + 1];
    if (col + 2 < cols) v.z = p[row * cols + col + 2];
    return v;
}

// Vector loads. Work-groups of 16 x 8 compute a 64 x 64 tile of c, K in steps of 16; each
// work-item holds 8 rows x 4 columns of c as eight float4 and fills the tiles with float4 reads.
// Global: (n rounded up to 64, divided by 4; m rounded up to 64, divided by 8).
#define VS_TM 64
#define VS_TN 64
#define VS_TK 16
#define VS_WPT 8
#define VS_TX (VS_TN / 4)
#define VS_TY (VS_TM / VS_WPT)

__kernel __attribute__((reqd_work_group_size(VS_TX, VS_TY, 1)))
void sgemm_vector(__global const float *a, __global const float *b, __global float *c,
                  const uint m, const uint n, const uint k)
{
    __local float a_tile[VS_TK][VS_TM];        // transposed: a_tile[j][r] = a[row0 + r][k0 + j]
    __local float4 b_tile[VS_TK][VS_TX];
    const int lx = get_local_id(0), ly = get_local_id(1), id = ly * VS_TX + lx;
    const int row0 = get_group_id(1) * VS_TM, col0 = get_group_id(0) * VS_TN;

    float4 acc[VS_WPT];
    for (int w = 0; w < VS_WPT; w++)
        acc[w] = (float4)(0.0f);

    for (int k0 = 0; k0 < (int)k; k0 += VS_TK) {
        for (int e = id; e < VS_TM * VS_TK / 4; e += VS_TX * VS_TY) {
            const int r = e / (VS_TK / 4), j = (e % (VS_TK / 4)) * 4;
            const float4 v = four_of(a, row0 + r, m, k0 + j, k);
            a_tile[j][r] = v.x;
            a_tile[j + 1][r] = v.y;
            a_tile[j + 2][r] = v.z;
            a_tile[j + 3][r] = v.w;
        }
        for (int e = id; e < VS_TK * VS_TX; e += VS_TX * VS_TY) {
            const int j = e / VS_TX, q = e % VS_TX;
            b_tile[j][q] = four_of(b, k0 + j, k, col0 + 4 * q, n);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < VS_TK; j++) {
            const float4 bv = b_tile[j][lx];
            for (int w = 0; w < VS_WPT; w++)
                acc[w] += a_tile[j][ly + w * VS_TY] * bv;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int col = col0 + 4 * lx;
    for (int w = 0; w < VS_WPT; w++) {
        const int row = row0 + ly + w * VS_TY;
        if (row >= (int)m || col >= (int)n)
            continue;
        if (col + 3 < (int)n) {
            vstore4(acc[w], 0, c + row * n + col);
        } else {
            c[row * n + col] = acc[w].x;
            if (col + 1 < (int)n) c[row * n + col + 1] = acc[w].y;
            if (col + 2 < (int)n) c[row * n + col + 2] = acc[w].z;
        }
    }
}


// Every choice a build-time parameter (the course's counterpart of Du et al.'s Table 4):
//   TM x TN  the tile of c one work-group computes (rows x columns)
//   TX x TY  the work-group shape; each work-item computes (TM / TY) x (TN / TX) elements of c
//   VR       how those elements are spread (1, 2 or 4): in runs of VR neighbours, the runs TY * VR
//            rows and TX * VR columns apart; each run is read from the tiles as one vector (with
//            VR = 1, rows ty, ty + TY, ... and columns tx, tx + TX, ...)
//   TK       how far along k each step of the tile loop goes (K-blocking)
//   VW       the vector width of the reads that fill the tiles (1, 2 or 4; divides TK and TN)
//   PF       1: read the next step's tiles from global memory into registers while this step
//            computes (prefetching); 0: read, then compute
//   LOCAL    1: tiles of a and b in local memory; 0: every operand read through the caches
//   DB       1: two sets of tiles, used in turn, so that one barrier per step is enough (with PF:
//            the next step's tiles are stored while others still read this step's)
//   WX       0: work-item (tx, ty) computes with the work-group's own shape; 4, 8 or 16: each
//            32 work-items (a warp) compute a compact WX x (32 / WX) patch of the work-group's
//            results, a second level of tiling that sets how many different tile addresses a
//            warp reads at once (the loads of the tiles keep the plain order)
//   KU       1: the loop over a step's TK values unrolled (#pragma unroll); 0: left to the compiler
// Global: (n rounded up to TN, divided by TN / TX; m rounded up to TM, divided by TM / TY).
#ifndef TM
#define TM 64
#endif
#ifndef TN
#define TN 64
#endif
#ifndef TK
#define TK 16
#endif
#ifndef TX
#define TX 16
#endif
#ifndef TY
#define TY 16
#endif
#ifndef VW
#define VW 1
#endif
#ifndef VR
#define VR 1
#endif
#ifndef PF
#define PF 0
#endif
#ifndef LOCAL
#define LOCAL 1
#endif
#ifndef DB
#define DB 0
#endif
#ifndef WX
#define WX 0
#endif
#ifndef KU
#define KU 0
#endif
#define WM (TM / TY)
#define WN (TN / TX)
#define GROUP (TX * TY)

#if VW == 4
#define VTYPE float4
#define VLOAD(p) vload4(0, p)
#define VMAKE(v) ((float4)((v)[0], (v)[1], (v)[2], (v)[3]))
#define LANES(x) {(x).s0, (x).s1, (x).s2, (x).s3}
#elif VW == 2
#define VTYPE float2
#define VLOAD(p) vload2(0, p)
#define VMAKE(v) ((float2)((v)[0], (v)[1]))
#define LANES(x) {(x).s0, (x).s1}
#else
#define VTYPE float
#define VLOAD(p) (*(p))
#define VMAKE(v) ((v)[0])
#define LANES(x) {(x)}
#endif

#if VR == 4
#define RTYPE float4
#define RLANES(x) {(x).s0, (x).s1, (x).s2, (x).s3}
#elif VR == 2
#define RTYPE float2
#define RLANES(x) {(x).s0, (x).s1}
#else
#define RTYPE float
#define RLANES(x) {(x)}
#endif

// a's tile is stored transposed (a_tile[j][r] = a[row0 + r][k0 + j]); its rows are padded by VR
// floats, so that the transposing stores spread over the banks and vector reads stay aligned
#define AROW (TM + VR)

// VW floats of p (a rows x cols matrix) from (row, col) on, zero outside it
inline VTYPE fetch(__global const float *p, int row, int rows, int col, int cols)
{
    if (row < rows && col + VW <= cols)
        return VLOAD(p + row * cols + col);
    float v[VW];
    for (int q = 0; q < VW; q++)
        v[q] = (row < rows && col + q < cols) ? p[row * cols + col + q] : 0.0f;
    return VMAKE(v);
}

// element e of a tile step: where it comes from and where it goes
#define A_ROW(e) ((e) / (TK / VW))
#define A_COL(e) (((e) % (TK / VW)) * VW)
#define B_ROW(e) ((e) / (TN / VW))
#define B_COL(e) (((e) % (TN / VW)) * VW)

inline void put_a(__local float *as, int e, VTYPE x)
{
    const float l[VW] = LANES(x);
    for (int q = 0; q < VW; q++)
        as[(A_COL(e) + q) * AROW + A_ROW(e)] = l[q];
}

inline void put_b(__local float *bs, int e, VTYPE x)
{
    const float l[VW] = LANES(x);
    for (int q = 0; q < VW; q++)
        bs[B_ROW(e) * TN + B_COL(e) + q] = l[q];
}

__kernel __attribute__((reqd_work_group_size(TX, TY, 1)))
void sgemm_param(__global const float *a, __global const float *b, __global float *c,
                 const uint m, const uint n, const uint k)
{
    const int row0 = get_group_id(1) * TM, col0 = get_group_id(0) * TN;
#if WX
    // (tx, ty): where this work-item's results lie; warps cover WX x (32 / WX) patches
    const int lin = get_local_id(1) * TX + get_local_id(0), warp = lin / 32, lane = lin % 32;
    const int tx = (warp % (TX / WX)) * WX + lane % WX;
    const int ty = (warp / (TX / WX)) * (32 / WX) + lane / WX;
#else
    const int tx = get_local_id(0), ty = get_local_id(1);
#endif
    float acc[WM][WN];
    for (int i = 0; i < WM; i++)
        for (int j = 0; j < WN; j++)
            acc[i][j] = 0.0f;

#if LOCAL
    __local RTYPE a_tiles[(1 + DB) * TK * AROW / VR];
    __local RTYPE b_tiles[(1 + DB) * TK * TN / VR];
    const int id = get_local_id(1) * TX + get_local_id(0);  // the loads' order, whatever WX
#if PF
    // each work-item's share of a step, held in registers between the reads and the stores
#define NA (TM * TK / VW / GROUP)
#define NB (TK * TN / VW / GROUP)
    VTYPE pa[NA], pb[NB];
    for (int t = 0; t < NA; t++) {
        const int e = id + t * GROUP;
        pa[t] = fetch(a, row0 + A_ROW(e), m, A_COL(e), k);
    }
    for (int t = 0; t < NB; t++) {
        const int e = id + t * GROUP;
        pb[t] = fetch(b, B_ROW(e), k, col0 + B_COL(e), n);
    }
#endif
    for (int k0 = 0; k0 < (int)k; k0 += TK) {
        const int set = DB ? (k0 / TK) % 2 : 0;  // which set of tiles this step uses
        __local RTYPE *a_tile = a_tiles + set * (TK * AROW / VR);
        __local RTYPE *b_tile = b_tiles + set * (TK * TN / VR);
        __local float *as = (__local float *)a_tile, *bs = (__local float *)b_tile;
#if PF
        for (int t = 0; t < NA; t++)
            put_a(as, id + t * GROUP, pa[t]);
        for (int t = 0; t < NB; t++)
            put_b(bs, id + t * GROUP, pb[t]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + TK < (int)k) {
            for (int t = 0; t < NA; t++) {
                const int e = id + t * GROUP;
                pa[t] = fetch(a, row0 + A_ROW(e), m, k0 + TK + A_COL(e), k);
            }
            for (int t = 0; t < NB; t++) {
                const int e = id + t * GROUP;
                pb[t] = fetch(b, k0 + TK + B_ROW(e), k, col0 + B_COL(e), n);
            }
        }
#else
        for (int e = id; e < TM * TK / VW; e += GROUP)
            put_a(as, e, fetch(a, row0 + A_ROW(e), m, k0 + A_COL(e), k));
        for (int e = id; e < TK * TN / VW; e += GROUP)
            put_b(bs, e, fetch(b, k0 + B_ROW(e), k, col0 + B_COL(e), n));
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
#if KU
#pragma unroll
#endif
        for (int j = 0; j < TK; j++) {
            float ar[WM], br[WN];
            for (int i = 0; i < WM / VR; i++) {
                const RTYPE x = a_tile[j * (AROW / VR) + ty + i * TY];
                const float l[VR] = RLANES(x);
                for (int v = 0; v < VR; v++) ar[i * VR + v] = l[v];
            }
            for (int q = 0; q < WN / VR; q++) {
                const RTYPE x = b_tile[j * (TN / VR) + tx + q * TX];
                const float l[VR] = RLANES(x);
                for (int v = 0; v < VR; v++) br[q * VR + v] = l[v];
            }
            for (int i = 0; i < WM; i++)
                for (int q = 0; q < WN; q++)
                    acc[i][q] = fma(ar[i], br[q], acc[i][q]);
        }
#if !DB
        barrier(CLK_LOCAL_MEM_FENCE);  // with DB the next step fills the other set
#endif
    }
#else
    for (int j = 0; j < (int)k; j++) {
        float ar[WM], br[WN];
        for (int i = 0; i < WM; i++) {
            const int row = row0 + (ty + (i / VR) * TY) * VR + i % VR;
            ar[i] = row < (int)m ? a[row * k + j] : 0.0f;
        }
        for (int q = 0; q < WN; q++) {
            const int col = col0 + (tx + (q / VR) * TX) * VR + q % VR;
            br[q] = col < (int)n ? b[j * n + col] : 0.0f;
        }
        for (int i = 0; i < WM; i++)
            for (int q = 0; q < WN; q++)
                acc[i][q] = fma(ar[i], br[q], acc[i][q]);
    }
#endif
    for (int i = 0; i < WM; i++) {
        const int row = row0 + (ty + (i / VR) * TY) * VR + i % VR;
        if (row >= (int)m)
            continue;
        for (int q = 0; q < WN; q++) {
            const int col = col0 + (tx + (q / VR) * TX) * VR + q % VR;
            if (col < (int)n)
                c[row * n + col] = acc[i][q];
        }
    }
}
