// Solution of leaky_relu: select() picks one of two values by a condition that is a value, not
// a jump, so every work-item of a warp runs the same instructions. (fmax(v, 0.01f * v) gives the
// same result for finite v.)
__kernel void leaky_relu(__global const float *x,
                         __global float *y,
                         const uint n)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float v = x[i];
    y[i] = select(0.01f * v, v, v > 0.0f);
}
