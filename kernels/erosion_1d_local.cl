// Exercise erosion_1d_local: the same erosion, reading a tile from local memory.
//
// Neighbouring work-items read almost the same windows: with a tile, a work-group
// reads its block of the input from global memory once. The work-group's block is
// get_local_size(0) elements; the windows of its edge elements reach `radius`
// further on each side (the halo), so the tile holds
//     get_local_size(0) + 2 * radius floats:   tile[k] = in[block start - radius + k]
// The result is the same as erosion_1d's (the window is clipped to the data).
//
// Check it with check("erosion_1d_local").

__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    // TODO 1: load the tile, halo included (outside the data store INFINITY).
    // TODO 2: wait until the whole work-group has loaded its part.
    // TODO 3: the minimum over this element's window, read from the tile.
}
