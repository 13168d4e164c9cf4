// RIGHT: n >> 2 whole float4s and n & 3 leftovers; the crossing work-item builds a float4 from guarded scalar loads (?: evaluates only the chosen operand), one mad on it, then stores only the lanes below n.
__kernel void saxpy4(__global const float *x,
                     __global float *y,
                     const float a,
                     const uint n)
{
    const uint i = get_global_id(0);
    const uint whole = n >> 2;
    const uint rest = n & 3u;
    if (i < whole) {
        vstore4(mad((float4)a, vload4(i, x), vload4(i, y)), i, y);
    } else if (i == whole && rest != 0u) {
        const uint b = i << 2;
        const float4 xv = (float4)(x[b],
                                   rest > 1u ? x[b + 1] : 0.0f,
                                   rest > 2u ? x[b + 2] : 0.0f,
                                   0.0f);
        const float4 yv = (float4)(y[b],
                                   rest > 1u ? y[b + 1] : 0.0f,
                                   rest > 2u ? y[b + 2] : 0.0f,
                                   0.0f);
        const float4 r = mad((float4)a, xv, yv);
        y[b] = r.s0;
        if (rest > 1u) y[b + 1] = r.s1;
        if (rest > 2u) y[b + 2] = r.s2;
    }
}
