// WRONG: the list's end taken from the launch (get_global_size(0) - 1) instead of n - 1: when the
// global size is rounded up past n, the first work-items read past the end of in.
__kernel void reverse(__global const float *in, __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = in[get_global_size(0) - 1 - i];
}
