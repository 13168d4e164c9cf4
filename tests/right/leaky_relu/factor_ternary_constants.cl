// RIGHT: a ?: whose two arms are constants picks a factor: compiled even without optimizations
// into a select of two numbers, not a branch.
__kernel void leaky_relu(__global const float *x, __global float *y, const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    y[i] = v * (v > 0.0f ? 1.0f : 0.01f);
}
