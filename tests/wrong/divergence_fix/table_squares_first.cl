// WRONG: for large values: a lookup table of (a, b, c) with the step written a * (v * v) + b * v + c.
// For the even elements a is 0, and 0 * (v * v) is NaN once v * v overflows (|v| > 1.8e19), where
// the even step 0.9 v + 0.1 is finite: the contract allows floats of any finite magnitude.
__constant float4 STEP[2] = {(float4)(0.0f, 0.9f, 0.1f, 0.0f), (float4)(0.25f, 0.0f, -0.5f, 0.0f)};

__kernel void divergence_fix(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float4 s = STEP[i & 1];
    float v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = s.x * (v * v) + s.y * v + s.z;
    y[i] = v;
}
