// a float4 per work-item: 16 bytes a lane, 512 bytes a warp, 16 sectors
__kernel void copy4(__global const float4 *in, __global float4 *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}
