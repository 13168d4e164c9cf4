// RIGHT: the larger of v and 0.01 v is v where v > 0 and 0.01 v where v < 0 (and 0 at 0): one
// fmax, no branch, guarded by a uniform if rather than a return.
__kernel void leaky_relu(__global const float *x, __global float *y, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        y[i] = fmax(x[i], 0.01f * x[i]);
}
