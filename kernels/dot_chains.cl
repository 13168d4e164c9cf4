// Exercise dot_chains: the partial sums of a dot product x . y, four chains per work-item.
//
// The launch has G = get_global_size(0) work-items. Work-item g keeps four independent sums:
// chain k (k = 0, 1, 2, 3) adds the products x[i] * y[i] for i = g + k*G, g + k*G + 4G,
// g + k*G + 8G, ... (while i < n) and stores its sum in partial[4*g + k]; the host adds the
// 4G partial sums. n need not be a multiple of 4G, and G may exceed n / 4 or even n: a chain
// with no element stores 0. Neighbouring work-items read neighbouring elements at every load
// (coalesced reads): the check judges that on the warp model.
//
// Check it from the notebook with check("dot_chains"), or from a shell:
//     python -m helpers check dot_chains

__kernel void dot_chains(__global const float *x,
                         __global const float *y,
                         __global float *partial,
                         const uint n)
{
    // TODO: four sums in private variables, one loop over this work-item's steps;
    //       then store them in partial[4 * get_global_id(0) + k].
}
