// Notebook 06, "Registers, private arrays and unrolling": an 8-tap filter run along `steps`
// samples of `channels` signals, one work-item per signal. Sample t of signal c is at
// [t * channels + c], so at every step neighbouring work-items read neighbouring floats.
//
//     y[t][c] = coef[0] x[t][c] + coef[1] x[t-1][c] + ... + coef[7] x[t-7][c]  (x before 0: 0)
//
// Each work-item keeps the last 8 samples of its signal. Where it keeps them is the lesson:
// registers are the fastest memory there is, but a private array that the compiler cannot index
// with constants goes to memory ("private" memory that lives in the device's DRAM, cached).

#define TAPS 8

// spill_fix starts here: the last 8 samples in a ring of 8 floats, written at t % 8. The index
// depends on t, known only at run time, so NVIDIA's compiler cannot give each element a register
// (its registers are named by constants; AMD's and Intel's GPUs can index theirs at run time, see
// fir_shift below). Unrolled by 8, the t loop would make t % 8 a constant in each copy of its body.
__kernel void fir_ring(__global const float *x, __global float *y, __constant float *coef,
                       const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    float ring[TAPS];
    for (uint k = 0; k < TAPS; ++k)
        ring[k] = 0.0f;
    for (uint t = 0; t < steps; ++t) {
        ring[t % TAPS] = x[t * channels + c];
        float acc = 0.0f;
        for (uint k = 0; k < TAPS; ++k)
            acc += coef[k] * ring[(t - k) % TAPS];   // t - k wraps as a uint: still right mod 8
        y[t * channels + c] = acc;
    }
}

// The same 8 samples in an array shifted by one place per step. Every index is a constant once
// the two inner loops are unrolled, and a compiler today unrolls them by itself. Built with
// -DNO_UNROLL, `#pragma unroll 1` forbids it, as a compiler that fails to unroll does: Du et al.
// (2011) found the Fermi GEMM's arrays in global memory on the Radeon 5870 and suspected loops the
// compiler had not fully unrolled (004 lines 235, 246); on NVIDIA GPUs such arrays live in memory,
// while today's AMD and Intel GPUs can index registers at run time.
__kernel void fir_shift(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    float h[TAPS];
    for (uint k = 0; k < TAPS; ++k)
        h[k] = 0.0f;
    for (uint t = 0; t < steps; ++t) {
#ifdef NO_UNROLL
#pragma unroll 1
#endif
        for (uint k = TAPS - 1; k > 0; --k)
            h[k] = h[k - 1];
        h[0] = x[t * channels + c];
        float acc = 0.0f;
#ifdef NO_UNROLL
#pragma unroll 1
#endif
        for (uint k = 0; k < TAPS; ++k)
            acc += coef[k] * h[k];
        y[t * channels + c] = acc;
    }
}
