// RIGHT: the lesson's second way: the coefficients by parity from a program-scope __constant table of
// float4s (float3 is misread by NVIDIA), the step in its factored form.
__constant float4 STEP[2] = {(float4)(0.0f, 0.9f, 0.1f, 0.0f),
                             (float4)(0.25f, 0.0f, -0.5f, 0.0f)};

__kernel void divergence_fix(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float4 s = STEP[i % 2];
    float v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = (s.x * v + s.y) * v + s.z;
    y[i] = v;
}
