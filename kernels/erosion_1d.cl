// Exercise erosion_1d: the minimum over a sliding window, in global memory.
//
// out[i] = the minimum of in[j] for max(0, i - radius) <= j <= min(n - 1, i + radius):
// a window of 2 * radius + 1 elements centred on i, clipped at both ends of the data.
// The global size may exceed n.
//
// Check it with check("erosion_1d").

__kernel void erosion_1d(__global const float *in,
                         __global float *out,
                         const uint n,
                         const uint radius)
{
    // TODO: this work-item's element i; the window's first and last index,
    //       clipped to 0 .. n - 1; the minimum over the window into out[i].
}
