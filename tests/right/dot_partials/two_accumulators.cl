// RIGHT: the loop unrolled by two with two independent sums (i and i + G in one step, then
// 2G on): two chains of additions the hardware can overlap, summed at the end. Another order of
// the same sum (within the tolerance), and every load still coalesced.
__kernel void dot_partials(__global const float *x, __global const float *y,
                           __global float *partial, const uint n)
{
    const uint g = get_global_id(0), G = get_global_size(0);
    float s0 = 0.0f, s1 = 0.0f;
    uint i = g;
    for (; i + G < n; i += 2 * G) {
        s0 = fma(x[i], y[i], s0);
        s1 = fma(x[i + G], y[i + G], s1);
    }
    if (i < n)
        s0 = fma(x[i], y[i], s0);
    partial[g] = s0 + s1;
}
