// WRONG: the technique is missing: each work-item takes two neighbouring elements a step (2g and 2g + 1), then
// strides by twice the range. The values are right, but at a step neighbouring work-items are two
// elements apart: a warp's request touches twice the sectors it needs.
__kernel void strided_fix(__global const float *x, __global float *y, const float a, const uint n)
{
    const uint size = get_global_size(0);
    for (uint i = 2 * get_global_id(0); i < n; i += 2 * size) {
        y[i] = a * x[i] + y[i];
        if (i + 1 < n)
            y[i + 1] = a * x[i + 1] + y[i + 1];
    }
}
