// Exercise reverse: write the list backwards.
//
// out[0] is the last of the n elements of in, out[1] the one before it, and so on to
// out[n - 1], the first. One work-item per element, as in float_copy; the global size may
// be rounded up past n. The kernel below copies instead of reversing: its index is wrong.
//
// Check it from the notebook with check("reverse"), or from a shell:
//     python -m helpers check reverse

__kernel void reverse(__global const float *in,
                      __global float *out,
                      const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = in[i];   // TODO: read from the other end of the list
}
