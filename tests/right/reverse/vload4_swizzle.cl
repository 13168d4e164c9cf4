// RIGHT: work-item i writes out[4i .. 4i+3] as one float4, a vload4 of in at the mirrored (unaligned) offset swizzled .wzyx; the last partial quad one float at a time.
__kernel void reverse(__global const float *in,
                      __global float *out,
                      const uint n)
{
    const uint i = get_global_id(0);
    const uint first = 4 * i;
    if (first + 3 < n) {
        const float4 v = vload4(0, in + (n - 4 - first));
        vstore4(v.wzyx, i, out);
    } else {
        for (uint j = first; j < n; ++j)
            out[j] = in[n - 1 - j];
    }
}
