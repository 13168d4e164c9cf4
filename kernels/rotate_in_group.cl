// Exercise rotate_in_group: rotate each work-group's block by one place, through local memory.
//
// The global size is the data's length, a multiple of the local size L; work-group g
// owns the block in[g * L] .. in[g * L + L - 1]. Each work-item stores its element in
// the tile (L floats of local memory), then takes its right-hand neighbour's from it,
// wrapping round at the block's end:
//     out[g * L + l] = in[g * L + (l + 1) % L]        (l the local id)
// The kernel below does all of that, but it is not safe yet: one line is missing.
//
// Check it from the notebook with check("rotate_in_group"), or from a shell:
//     python -m helpers check rotate_in_group

__kernel void rotate_in_group(__global const float *in,
                              __global float *out,
                              __local float *tile)
{
    const size_t i = get_global_id(0);
    const size_t l = get_local_id(0);
    const size_t L = get_local_size(0);
    tile[l] = in[i];
    // TODO: make sure the neighbour's element is in the tile before reading it.
    out[i] = tile[(l + 1) % L];
}
