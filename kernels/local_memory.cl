// Demo of notebook 03: two ways to get local memory, used the same way.
// Each work-group reverses its block of the input: out[block start + k] = in[block end - k].

// 1. Declared in the kernel: the size is fixed when the program is built.
#define BLOCK 64

// reqd_work_group_size: the program builds as usual, but a launch with work-groups of any other
// size is refused when it is enqueued (INVALID_WORK_GROUP_SIZE), instead of letting work-items
// write past the end of block[].
__kernel __attribute__((reqd_work_group_size(BLOCK, 1, 1)))
void reverse_blocks_fixed(__global const float *in, __global float *out)
{
    __local float block[BLOCK];          // one copy per work-group, shared by its work-items
    const uint lid = get_local_id(0);
    block[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);        // every element of the block is written before any is read
    out[get_global_id(0)] = block[BLOCK - 1 - lid];
}

// 2. Passed as an argument: the host chooses the size at each launch (cl.LocalMemory(bytes)).
__kernel void reverse_blocks(__global const float *in, __global float *out, __local float *block)
{
    const uint lid = get_local_id(0);
    const uint size = get_local_size(0);
    block[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = block[size - 1 - lid];
}
