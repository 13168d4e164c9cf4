// Exercise dot_partials: the partial sums of a dot product x . y.
//
// The launch has G = get_global_size(0) work-items, fewer than the n elements. Work-item
// g adds up the products x[i] * y[i] for i = g, g + G, g + 2G, ... (while i < n) and
// stores its sum in partial[g]; the host adds the G partial sums. n need not be a
// multiple of G. Neighbouring work-items read neighbouring elements at every step (coalesced
// reads): the check judges that on the warp model.
//
// Check it from the notebook with check("dot_partials"), or from a shell:
//     python -m helpers check dot_partials

__kernel void dot_partials(__global const float *x,
                           __global const float *y,
                           __global float *partial,
                           const uint n)
{
    // TODO: loop over this work-item's elements, summing in a private variable;
    //       then store the sum in partial[get_global_id(0)].
}
