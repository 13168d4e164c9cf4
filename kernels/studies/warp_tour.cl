// The warp model's tour (notebook 05): one tiny kernel for each thing the model counts. Launched
// 1-D with work-groups of 1024 by helpers/warp/tour.py, on Oclgrind with the model's plugin.

// global memory: lane k of a warp reads float 32w + k, float 2(32w + k), float 32(32w + k)
__kernel void neighbours(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = in[i];
}

__kernel void every_second(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = in[2 * i];
}

__kernel void every_32nd(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    out[i] = in[32 * i];
}

// local memory: a 32 x 32 tile written along its rows, then read down its columns: lane k of
// warp w reads row k, column w. PAD 0: all 32 lanes in one bank; PAD 1: 32 different banks.
__kernel void down_a_column(__global const float *in, __global float *out)
{
    __local float tile[32][32 + PAD];
    size_t i = get_global_id(0), l = get_local_id(0);
    tile[l / 32][l % 32] = in[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tile[l % 32][l / 32];
}

// a branch on the lane's parity: the lanes of every warp go both ways (bodies too long for the
// compiler to turn the branch into a select)
__kernel void odd_and_even(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    float v = in[i];
    if (i % 2 == 0)
        v = sin(v) * 2.0f;
    else
        v = cos(v) + 1.0f;
    out[i] = v;
}

// private memory: an array indexed by a value known only at run time stays in memory
__kernel void private_array(__global const float *in, __global float *out)
{
    size_t i = get_global_id(0);
    float h[8];
    for (int k = 0; k < 8; k++)
        h[k] = in[(i + k) % get_global_size(0)];
    out[i] = h[(uint)in[i] % 8];
}
