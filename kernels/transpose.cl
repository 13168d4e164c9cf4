// Exercise transpose (notebook 09): a correct kernel is the start; the check also measures it.
//
// `in` is a height x width matrix stored row after row; write its transpose to `out`, a
// width x height matrix stored row after row:
//
//     out[x * height + y] = in[y * width + x]   for every x < width, y < height
//
// 2-D range: dimension 0 is the column x of `in`, dimension 1 its row y. Work-groups are
// square, T x T work-items (T a power of two); `tile` holds T * (T + 1) floats. The global size
// may be larger than the matrix in either dimension.
//
// A plain `out[x * height + y] = in[y * width + x]` is correct, but neighbouring work-items then
// write addresses `height` floats apart. Read a T x T block of `in` into `tile` (neighbours read
// neighbours), wait for the whole work-group, then write the block's transpose from `tile` so that
// neighbours write neighbours too. The check judges that too, on the warp model: the reads and
// writes of global memory coalesced, and a warp's reads of the tile in different banks (pad the
// tile's rows to T + 1 floats, or skew them; notebook 09).
//
// Check it with check("transpose"): the verdict says how fast it is against this device's copy
// bandwidth and against the solution.

__kernel void transpose(__global const float *in,
                        __global float *out,
                        const uint width,
                        const uint height,
                        __local float *tile)
{
    // TODO
}
