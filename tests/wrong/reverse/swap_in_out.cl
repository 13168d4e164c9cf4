// WRONG: a sequential in-place reversal (swap the two ends, over half the list) carried over
// half-way: the first half of the work-items copy their element, and only those from n / 2 on read
// from the other end, so the first half of out is a copy of in.
__kernel void reverse(__global const float *in, __global float *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n / 2)
        out[i] = in[i];
    else if (i < n)
        out[i] = in[n - 1 - i];
}
