/* WRONG: there is no barrier between loading the tile and reading it, so work-items read neighbours' slots before they are written.
 * Mistake: barrier(CLK_LOCAL_MEM_FENCE) is missing after the load loop; the load (a strided loop over all
 *   local size + 2*radius slots) and the window are otherwise right.
 * Shows: whenever radius > 0 and the work-group has >= 2 work-items: each window reads slots that other
 *   work-items load (a data race). Whether the values come out wrong depends on the device: a CPU
 *   device that runs a work-group's items one after another (PoCL) reads unloaded slots almost always;
 *   a GPU may get lucky inside one warp; Oclgrind reports the race / uninitialised reads. radius = 0
 *   (each work-item reads only its own slot) or local size 1 is right.
 * A good checker's first sentence: "work-items read tile slots that other work-items write, with no
 *   barrier(CLK_LOCAL_MEM_FENCE) in between (a race): add the barrier after loading the tile."
 */
__kernel void erosion_1d_local(__global const float *in,
                               __global float *out,
                               const uint n,
                               const uint radius,
                               __local float *tile)
{
    const uint i = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    const long start = (long)get_group_id(0) * lsize;

    for (uint k = lid; k < lsize + 2 * radius; k += lsize) {
        const long g = start - (long)radius + (long)k;
        tile[k] = (g >= 0 && g < (long)n) ? in[g] : INFINITY;
    }

    if (i < n) {
        float m = INFINITY;
        for (uint k = 0; k <= 2 * radius; ++k)
            m = fmin(m, tile[lid + k]);
        out[i] = m;
    }
}
