// RIGHT: the four chains as the lanes of one float4, each step's four products gathered into a
// float4 (a missing element as 0, by select, not a branch) and added with one fma; the four sums
// stored with one vstore4 at partial + 4g: a warp's stores are neighbouring float4s.
__kernel void dot_chains(__global const float *x, __global const float *y,
                         __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float4 acc = (float4)(0.0f);
    for (uint i = g; i < n; i += 4 * G) {
        const uint4 idx = (uint4)(i, i + G, i + 2 * G, i + 3 * G);
        const int4 in = idx < (uint4)(n);
        const uint4 safe = select((uint4)(i), idx, as_uint4(in));
        const float4 a = (float4)(x[safe.s0], x[safe.s1], x[safe.s2], x[safe.s3]);
        const float4 b = (float4)(y[safe.s0], y[safe.s1], y[safe.s2], y[safe.s3]);
        acc = fma(select((float4)(0.0f), a, in), b, acc);
    }
    vstore4(acc, g, partial);
}
