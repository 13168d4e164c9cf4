// WRONG: a plain store of a float through the half pointer: without the cl_khr_fp16 extension
// OpenCL C may not read or write a half directly (PoCL and Oclgrind refuse to compile it; a device
// with the extension, Intel's CPU runtime, runs it), so the conversion must be vstore_half.
__kernel void to_half(__global const float *in, __global half *out, const uint n)
{
    const uint i = get_global_id(0);
    if (i < n)
        out[i] = in[i];
}
