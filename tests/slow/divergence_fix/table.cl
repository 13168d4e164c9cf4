// The other remedy: no branch, one loop for every work-item, its constants from a table.
__constant float3 STEP[2] = {(float3)(0.0f, 0.9f, 0.1f), (float3)(0.25f, 0.0f, -0.5f)};

__kernel void divergence_fix(__global const float *x, __global float *y, const uint n,
                             const uint rounds)
{
    const uint i = get_global_id(0);
    if (i >= n)
        return;
    const float3 s = STEP[i & 1];
    float v = x[i];
    for (uint r = 0; r < rounds; ++r)
        v = (s.x * v + s.y) * v + s.z;
    y[i] = v;
}
