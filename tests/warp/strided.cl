// each work-item reads a float 32 floats (128 bytes) after its neighbour's: a sector per lane
__kernel void strided(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i * 32];
}
