// RIGHT: the work-items of the first half each write two elements, one at each end (out[i] and
// out[n - 1 - i]); the middle element of an odd n is written by one work-item, twice with the same
// value; the second half of the work-items do nothing.
__kernel void reverse(__global const float *in, __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < (n + 1) / 2) {
        const uint j = n - 1 - i;
        out[i] = in[j];
        out[j] = in[i];
    }
}
