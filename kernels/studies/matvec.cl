// The matrix-vector ladder of notebook 13: the steps of NVIDIA's whitepaper "OpenCL Programming
// for the CUDA Architecture" (2010; its listings 2 to 6, and in place of listing 7 the option it
// names before it), written for this course, and the course's fastest version.
// w = m . v, m row-major with `height` rows of `width` floats. Every kernel has the mat_vec_mul
// signature; `partial` holds one float per work-item (the first two do not use it).

// QUAD(p, q): the q-th float4 of global memory from p. vload4 promises only a float's alignment,
// and NVIDIA's compiler then reads the four floats one by one (no 128-bit load in the PTX of the
// vload4 sums, results/history/frontier-variants-nvidia-h100.json); a pointer to float4 promises 16 bytes,
// which a row has when width % 4 == 0 (a buffer argument starts aligned far beyond that).
// -DVLOAD4 builds the vload4 form, to compare.
#ifdef VLOAD4
#define QUAD(p, q) vload4((q), (p))
#else
#define QUAD(p, q) (((__global const float4 *)(p))[q])
#endif

// Listing 2's idea: one work-item per row. Neighbouring work-items read addresses `width`
// floats apart: no read of a warp is coalesced.
__kernel void mv_item_per_row(__global const float *m, __global const float *v, const uint width,
                              const uint height, __global float *w, __local float *partial)
{
    const uint y = get_global_id(0);
    if (y >= height)
        return;
    __global const float *row = m + (size_t)y * width;
    float sum = 0.0f;
    for (uint x = 0; x < width; ++x)
        sum += row[x] * v[x];
    w[y] = sum;
}

// Listing 3's idea: any number of work-items, each taking every get_global_size(0)-th row.
__kernel void mv_item_rows(__global const float *m, __global const float *v, const uint width,
                           const uint height, __global float *w, __local float *partial)
{
    for (uint y = get_global_id(0); y < height; y += get_global_size(0)) {
        __global const float *row = m + (size_t)y * width;
        float sum = 0.0f;
        for (uint x = 0; x < width; ++x)
            sum += row[x] * v[x];
        w[y] = sum;
    }
}

// From listing 4 on: a work-group per row, its work-items reading neighbouring elements
// (coalesced), each keeping a private sum of every get_local_size(0)-th product.
inline float strided_dot(__global const float *row, __global const float *v, const uint width)
{
    float sum = 0.0f;
    for (uint x = get_local_id(0); x < width; x += get_local_size(0))
        sum += row[x] * v[x];
    return sum;
}

// Listing 4's idea: the first work-item adds the group's partial sums one after another.
__kernel void mv_group_serial(__global const float *m, __global const float *v, const uint width,
                              const uint height, __global float *w, __local float *partial)
{
    const uint lid = get_local_id(0);
    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        partial[lid] = strided_dot(m + (size_t)y * width, v, width);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            float sum = 0.0f;
            for (uint k = 0; k < get_local_size(0); ++k)
                sum += partial[k];
            w[y] = sum;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // partial is reused for the next row
    }
}

// Listing 5's idea: a tree, interleaved. Work-item k adds element 2*s*k + s onto 2*s*k: the
// active work-items are packed, but their addresses are 2s apart (bank conflicts).
__kernel void mv_group_interleaved(__global const float *m, __global const float *v,
                                   const uint width, const uint height, __global float *w,
                                   __local float *partial)
{
    const uint lid = get_local_id(0);
    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        partial[lid] = strided_dot(m + (size_t)y * width, v, width);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = 1; s < get_local_size(0); s *= 2) {
            const uint at = 2 * s * lid;
            if (at < get_local_size(0))
                partial[at] += partial[at + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            w[y] = partial[0];
        barrier(CLK_LOCAL_MEM_FENCE);  // not needed after a tree (see mat_vec_mul's solution)
    }
}

// Listing 6's idea: sequential addressing, the upper half added onto the lower half
// (neighbouring work-items, neighbouring banks: no conflict).
__kernel void mv_group_sequential(__global const float *m, __global const float *v,
                                  const uint width, const uint height, __global float *w,
                                  __local float *partial)
{
    const uint lid = get_local_id(0);
    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        partial[lid] = strided_dot(m + (size_t)y * width, v, width);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = get_local_size(0) / 2; s > 0; s /= 2) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            w[y] = partial[0];
        barrier(CLK_LOCAL_MEM_FENCE);  // not needed after a tree (see mat_vec_mul's solution)
    }
}

// Not the whitepaper's listing 7, in which every warp first reduces its own 64 elements without a
// barrier and one warp then adds the few partials left (000 lines 288, 295-367), but the option it
// names just before: listing 6's loop unrolled, its barriers dropped for the last iterations, where
// one warp is active. The last 64 sums added by one warp with no barrier, trusting lockstep: a data
// race by OpenCL's rules (Oclgrind reports it) that happened to work on the GPUs of 2010.
// Needs a local size of at least 64.
__kernel void mv_group_warp(__global const float *m, __global const float *v, const uint width,
                            const uint height, __global float *w, __local float *partial)
{
    const uint lid = get_local_id(0);
    for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
        partial[lid] = strided_dot(m + (size_t)y * width, v, width);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint s = get_local_size(0) / 2; s > 32; s /= 2) {
            if (lid < s)
                partial[lid] += partial[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid < 32) {
            volatile __local float *p = partial;
            p[lid] += p[lid + 32];
            p[lid] += p[lid + 16];
            p[lid] += p[lid + 8];
            p[lid] += p[lid + 4];
            p[lid] += p[lid + 2];
            p[lid] += p[lid + 1];
        }
        if (lid == 0)
            w[y] = partial[0];
        barrier(CLK_LOCAL_MEM_FENCE);  // not needed after a tree (see mat_vec_mul's solution)
    }
}

// The course's fastest: a slice of SLICE work-items per row (SLICE is set at build time, a
// power of two up to the local size), so a work-group works on several rows at once and a
// short row still keeps every work-item busy. Rows are read four floats at a time when width is
// a multiple of 4. Barriers at every step: correct on any device.
#ifndef SLICE
#define SLICE 32
#endif

// The slice's SLICE partial sums added in a tree in local memory (a barrier at every step, reached by
// every work-item), and lane 0 storing the row's total w[y] when y is a row.
inline void slice_total(__local float *partial, const uint lid, const uint lane, const float sum,
                        __global float *w, const uint y, const uint height)
{
    partial[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = SLICE / 2; s > 0; s /= 2) {
        if (lane < s)
            partial[lid] += partial[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && y < height)
        w[y] = partial[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
}
__kernel void mv_slices(__global const float *m, __global const float *v, const uint width,
                        const uint height, __global float *w, __local float *partial)
{
    const uint lid = get_local_id(0);
    const uint lane = lid % SLICE;
    const uint rows_per_group = get_local_size(0) / SLICE;
    const uint step = get_num_groups(0) * rows_per_group;
    // every work-item runs the same number of iterations: the barriers are reached by all
    for (uint base = get_group_id(0) * rows_per_group; base < height; base += step) {
        const uint y = base + lid / SLICE;
        float sum = 0.0f;
        if (y < height) {
            __global const float *row = m + (size_t)y * width;
            if (width % 4 == 0) {
                float4 acc = (float4)(0.0f);
                for (uint q = lane; q < width / 4; q += SLICE)
                    acc += QUAD(row, q) * QUAD(v, q);
                sum = acc.x + acc.y + acc.z + acc.w;
            } else {
                for (uint x = lane; x < width; x += SLICE)
                    sum += row[x] * v[x];
            }
        }
        slice_total(partial, lid, lane, sum, w, y, height);
    }
}

// The slice kernel with ROWS rows per slice at once: each work-item keeps its quarter-slices of v
// in a register across the rows, has ROWS independent loads of m in flight, and the work-group
// adds its partial sums once per pass (one barrier) rather than in a tree of barriers. Rows past
// the end are read as the last row (a clamp, not a branch) and not stored. `partial` holds
// (local size / SLICE) * ROWS * (SLICE + 1) floats: a padded row of SLICE partials per matrix row.
#ifndef ROWS
#define ROWS 4
#endif
__kernel void mv_slices_rows(__global const float *restrict m, __global const float *restrict v,
                             const uint width, const uint height, __global float *restrict w,
                             __local float *partial)
{
    const uint lid = get_local_id(0);
    const uint lane = lid % SLICE, slice = lid / SLICE;
    const uint rows_per_group = get_local_size(0) / SLICE * ROWS;
    const uint step = get_num_groups(0) * rows_per_group;
    for (uint base = get_group_id(0) * rows_per_group; base < height; base += step) {
        const uint y0 = base + slice * ROWS;
        float sum[ROWS];
        __global const float *row[ROWS];
        for (uint r = 0; r < ROWS; ++r) {
            sum[r] = 0.0f;
            row[r] = m + (size_t)min(y0 + r, height - 1) * width;
        }
        if (width % 4 == 0) {
            for (uint q = lane; q < width / 4; q += SLICE) {
                const float4 vq = QUAD(v, q);
                for (uint r = 0; r < ROWS; ++r)
                    sum[r] += dot(QUAD(row[r], q), vq);
            }
        } else {
            for (uint x = lane; x < width; x += SLICE) {
                const float vx = v[x];
                for (uint r = 0; r < ROWS; ++r)
                    sum[r] += row[r][x] * vx;
            }
        }
        for (uint r = 0; r < ROWS; ++r)
            partial[(slice * ROWS + r) * (SLICE + 1) + lane] = sum[r];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < rows_per_group && base + lid < height) {
            float s = 0.0f;
            for (uint k = 0; k < SLICE; ++k)
                s += partial[lid * (SLICE + 1) + k];
            w[base + lid] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);  // the next pass overwrites partial
    }
}

// The slice of SLICE per row with v copied into local memory once per work-group (`partial` holds
// the local size's partial sums, then v: local size + width floats), and few work-groups that loop
// over the rows: the rows of m are then the only reads that reach the caches.
__kernel void mv_slices_local_v(__global const float *restrict m, __global const float *restrict v,
                                const uint width, const uint height, __global float *restrict w,
                                __local float *partial)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint lane = lid % SLICE;
    const uint rows_per_group = size / SLICE;
    const uint step = get_num_groups(0) * rows_per_group;
    __local float *vs = partial + size;
    for (uint x = lid; x < width; x += size)
        vs[x] = v[x];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint base = get_group_id(0) * rows_per_group; base < height; base += step) {
        const uint y = base + lid / SLICE;
        float sum = 0.0f;
        if (y < height) {
            __global const float *row = m + (size_t)y * width;
            if (width % 4 == 0) {
                float4 acc = (float4)(0.0f);
#pragma unroll 4
                for (uint q = lane; q < width / 4; q += SLICE)
                    acc += QUAD(row, q) * vload4(q, vs);
                sum = acc.x + acc.y + acc.z + acc.w;
            } else {
                for (uint x = lane; x < width; x += SLICE)
                    sum += row[x] * vs[x];
            }
        }
        slice_total(partial, lid, lane, sum, w, y, height);
    }
}

// The matrix read as one stream: each work-group takes a block of ROWS consecutive rows, which
// lie one after another in memory, and its work-items read that block front to back, each a
// float4 (or a float when width % 4 != 0) `local size` apart, as the sum of notebook 12 reads its
// array. A work-item keeps the row and column of its element by adding, not dividing, and adds its
// running sum into its own slot of the row when it moves on to the next row: `partial` holds ROWS
// slots per work-item (ROWS * local size floats), so no slot is shared and no barrier is needed
// until the block is read. Then each row's slots are added: local size / ROWS work-items per row
// (a power of two), each over a strided share, then a short tree. Work-groups loop over the
// blocks. Every load of a warp is aligned and contiguous whatever the width, and a work-group
// meets log2(local size / ROWS) + 3 barriers per ROWS rows (six for 256 and 32), where the slice
// kernel meets seven per local size / SLICE rows. On the H100 it was no faster than the slices
// (0.098 ms at best against 0.093, results/history/frontier-variants-nvidia-h100.json): not in the ladder.
#ifndef ROWS
#define ROWS 32
#endif
// A work-item of mv_stream moves `size` elements on: its column and row by adding, and its running
// sum into its slot of the row it leaves.
inline void stream_on(__local float *partial, const uint lid, const uint size, const uint q,
                      uint *r, uint *c, float *acc)
{
    uint next = *r;
    for (*c += size; *c >= q; *c -= q)
        ++next;
    if (next != *r) {
        partial[*r * size + lid] += *acc;
        *acc = 0.0f;
        *r = next;
    }
}
__kernel void mv_stream(__global const float *restrict m, __global const float *restrict v,
                        const uint width, const uint height, __global float *restrict w,
                        __local float *partial)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint per_row = size / ROWS;  // work-items that add one row's slots
    const uint vec = width % 4 == 0 ? 4 : 1;
    const uint q = width / vec;        // elements (float4 or float) per row
    for (uint r0 = get_group_id(0) * ROWS; r0 < height; r0 += get_num_groups(0) * ROWS) {
        const uint count = min((uint)ROWS, height - r0) * q;
        for (uint r = 0; r < ROWS; ++r)
            partial[r * size + lid] = 0.0f;
        uint r = lid / q, c = lid % q;
        float acc = 0.0f;
        if (vec == 4) {
            __global const float4 *block = (__global const float4 *)(m + (size_t)r0 * width);
            __global const float4 *v4 = (__global const float4 *)v;
            for (uint f = lid; f < count; f += size) {
                acc += dot(block[f], v4[c]);
                stream_on(partial, lid, size, q, &r, &c, &acc);
            }
        } else {
            __global const float *block = m + (size_t)r0 * width;
            for (uint f = lid; f < count; f += size) {
                acc += block[f] * v[c];
                stream_on(partial, lid, size, q, &r, &c, &acc);
            }
        }
        if (r < ROWS)
            partial[r * size + lid] += acc;
        barrier(CLK_LOCAL_MEM_FENCE);
        const uint row = lid / per_row, part = lid % per_row;
        float s = 0.0f;
        for (uint k = part; k < size; k += per_row)
            s += partial[row * size + k];
        partial[row * size + part] = s;  // a slot only this work-item reads
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint span = per_row / 2; span > 0; span /= 2) {
            if (part < span)
                partial[row * size + part] += partial[row * size + part + span];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (part == 0 && r0 + row < height)
            w[r0 + row] = partial[row * size];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
