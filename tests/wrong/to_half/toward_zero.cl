// WRONG: vstore_half_rtz rounds toward zero (it truncates the fraction): a float just below the
// next half, or past 65504, keeps the smaller half, where the nearest (ties to even) is asked.
__kernel void to_half(__global const float *in, __global half *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        vstore_half_rtz(in[i], i, out);
}
