// Exercise spill_fix (notebook 06): an 8-tap filter along each of `channels` signals, one
// work-item per signal. Sample t of signal c is x[t * channels + c] (neighbouring work-items read
// neighbouring floats), and
//
//     y[t * channels + c] = coef[0] x[t][c] + coef[1] x[t-1][c] + ... + coef[7] x[t-7][c]
//
// with the samples before t = 0 taken as 0. The global size may exceed channels.
//
// The kernel below (kernels/studies/registers.cl, `fir_ring`) is correct. It keeps the last 8
// samples of its signal in a private array used as a ring, written at t % 8:
//
//     const uint c = get_global_id(0);
//     if (c >= channels) return;
//     float ring[8];
//     for (uint k = 0; k < 8; ++k) ring[k] = 0.0f;
//     for (uint t = 0; t < steps; ++t) {
//         ring[t % 8] = x[t * channels + c];
//         float acc = 0.0f;
//         for (uint k = 0; k < 8; ++k)
//             acc += coef[k] * ring[(t - k) % 8];
//         y[t * channels + c] = acc;
//     }
//
// The index t % 8 is known only while the kernel runs, so NVIDIA's compiler cannot give each
// element of `ring` a register of its own (AMD's and Intel's GPUs can index registers at run
// time): on an NVIDIA GPU the array lives in memory ("private" memory that is really DRAM behind
// a cache), and every step reads it 8 times, unless the t loop is unrolled by 8, which makes
// t % 8 a constant in each copy of the body. Rewrite the kernel so that the history stays in
// registers; the result stays the same.
//
// Check it with check("spill_fix"): the verdict measures your kernel beside the one above.

__kernel void spill_fix(__global const float *x,
                        __global float *y,
                        __constant float *coef,
                        const uint channels,
                        const uint steps)
{
    // TODO
}
