// WRONG: the learner split the function into its positive part and the leak, but added the leak
// for every value: fmax(v, 0) + 0.01 v is 1.01 v where v > 0.
__kernel void leaky_relu(__global const float *x, __global float *y, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = fmax(x[i], 0.0f) + 0.01f * x[i];
}
