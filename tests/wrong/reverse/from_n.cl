// WRONG: off by one at the far end: the last element is taken as in[n], so work-item 0 reads one
// past the end of in and every element is shifted by one place.
__kernel void reverse(__global const float *in, __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = in[n - i];
}
