// WRONG: the index given to vstore_half in bytes (2 a half), where it counts halves: every other
// element is skipped and the second half of the work-items store past the end of out.
__kernel void to_half(__global const float *in, __global half *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        vstore_half(in[i], 2 * i, out);
}
