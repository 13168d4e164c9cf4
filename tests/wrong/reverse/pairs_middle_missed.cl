// WRONG: the first n / 2 work-items each swap a pair from both ends, so when n is odd the middle element out[n / 2] is never written.
__kernel void reverse(__global const float *in,
                      __global float *out,
                      const uint n)
{
    const uint i = get_global_id(0);
    if (i < n / 2) {
        out[i] = in[n - 1 - i];
        out[n - 1 - i] = in[i];
    }
}
