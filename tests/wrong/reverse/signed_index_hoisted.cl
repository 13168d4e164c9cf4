// WRONG: reads in[n - 1 - i] with a signed index before the guard, so the work-items past n read before the start of in (negative indices) even though they store nothing.
__kernel void reverse(__global const float *in,
                      __global float *out,
                      const uint n)
{
    const int i = (int)get_global_id(0);
    const float v = in[(int)n - 1 - i];
    if (i < (int)n)
        out[i] = v;
}
