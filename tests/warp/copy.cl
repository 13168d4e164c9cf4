// coalesced: neighbouring work-items read neighbouring floats
__kernel void copy(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}
