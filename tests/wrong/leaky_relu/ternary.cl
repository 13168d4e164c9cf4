// WRONG: the learner replaced the if/else by ?:, believing the conditional operator branch-free.
// As written it still branches (its arms are expressions, evaluated one or the other): the warps
// split on the sign.
__kernel void leaky_relu(__global const float *x, __global float *y, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    y[i] = v > 0.0f ? v : 0.01f * v;
}
