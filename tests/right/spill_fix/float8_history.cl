/* RIGHT: the history is one float8 shifted with constant swizzles, and the work-items walk over the channels with a grid-stride loop.
 * h.s0 is the newest sample, h.s7 the oldest; (float8)(new, h.s012, h.s3456) moves everything one
 * place older. The products are added pairwise (lo + hi, then the four lanes), which only changes
 * the rounding. A global size larger than channels just makes some work-items skip the loop.
 */
__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const float8 cf = vload8(0, coef);
    for (uint c = get_global_id(0); c < channels; c += get_global_size(0)) {
        float8 h = (float8)(0.0f);
        for (uint t = 0; t < steps; ++t) {
            h = (float8)(x[t * channels + c], h.s012, h.s3456);
            const float8 p = cf * h;
            const float4 q = p.lo + p.hi;
            y[t * channels + c] = (q.x + q.y) + (q.z + q.w);
        }
    }
}
