// WRONG: "keep it finite": the float is clamped to half's range before the conversion, so values
// beyond 65504 become 65504 where the nearest half is infinity.
__kernel void to_half(__global const float *in, __global half *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        vstore_half(clamp(in[i], -65504.0f, 65504.0f), i, out);
}
