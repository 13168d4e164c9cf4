// a branch on the work-item's parity (every warp splits) or on its warp (none does)
__kernel void branch(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0), l = get_local_id(0);
    float v = in[i];
    if (CONDITION)
        v = sin(v) * 2.0f;
    else
        v = cos(v) + 1.0f;
    out[i] = v;
}
