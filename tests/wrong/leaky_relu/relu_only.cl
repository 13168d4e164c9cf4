// WRONG: fmax(v, 0) is a plain ReLU: the negative values become 0 instead of leaking.
__kernel void leaky_relu(__global const float *x, __global float *y, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = fmax(x[i], 0.0f);
}
