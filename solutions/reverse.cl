// Solution of reverse: element i of out comes from n - 1 - i.
__kernel void reverse(__global const float *in,
                      __global float *out,
                      const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = in[n - 1 - i];
}
