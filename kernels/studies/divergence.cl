// Notebook 10: branch divergence and access order, after Eric Holk's "Access Patterns Matter"
// (the post gives no date). C = A + B on even rows and A - B on odd rows of N x N row-major float
// matrices (the post adds A + A and A - A on doubles, 003 lines 30, 56, 90: two arrays, where these
// move three, so the times do not compare). The _col variants alternate on columns.
// Each kernel is the course's own; the names follow the blog's MyAdd family.

#define AT(M, i, j) (M)[(size_t)(i) * N + (j)]

// One work-item per row, a loop over the columns (1-D range of N).
__kernel void my_add(__global const float *A, __global const float *B, __global float *C,
                     const uint N)
{
    const uint i = get_global_id(0);
    if (i >= N)
        return;
    for (uint j = 0; j < N; ++j)
        AT(C, i, j) = i % 2 == 0 ? AT(A, i, j) + AT(B, i, j) : AT(A, i, j) - AT(B, i, j);
}

// One work-item per element, dimension 0 = row i (as in the blog): neighbouring work-items
// read addresses N floats apart, and every other one takes the other branch.
__kernel void my_add_2d(__global const float *A, __global const float *B, __global float *C,
                        const uint N)
{
    const uint i = get_global_id(0), j = get_global_id(1);
    if (i >= N || j >= N)
        return;
    if (i % 2 == 0)
        AT(C, i, j) = AT(A, i, j) + AT(B, i, j);
    else
        AT(C, i, j) = AT(A, i, j) - AT(B, i, j);
}

// The blog's "unweave": the first N/2 work-items take the even rows, the rest the odd rows,
// so a warp no longer splits between the branches (dimension 0 is still the row).
__kernel void my_add_2d_unweave(__global const float *A, __global const float *B,
                                __global float *C, const uint N)
{
    const uint g = get_global_id(0), j = get_global_id(1);
    if (g >= N || j >= N)
        return;
    const uint evens = (N + 1) / 2;  // rows 0, 2, 4, ...: there are ceil(N / 2) of them
    if (g < evens) {
        const uint i = 2 * g;
        AT(C, i, j) = AT(A, i, j) + AT(B, i, j);
    } else {
        const uint i = 2 * (g - evens) + 1;
        AT(C, i, j) = AT(A, i, j) - AT(B, i, j);
    }
}

// Dimension 0 = column j: a warp reads 32 neighbouring floats of one row (coalesced), and all
// of them take the same branch (the row's parity). No divergence, no unweaving needed.
__kernel void my_add_2d_coalesced(__global const float *A, __global const float *B,
                                  __global float *C, const uint N)
{
    const uint j = get_global_id(0), i = get_global_id(1);
    if (i >= N || j >= N)
        return;
    if (i % 2 == 0)
        AT(C, i, j) = AT(A, i, j) + AT(B, i, j);
    else
        AT(C, i, j) = AT(A, i, j) - AT(B, i, j);
}

// The column-wise family: + on even columns, - on odd ones.
__kernel void my_add_col(__global const float *A, __global const float *B, __global float *C,
                         const uint N)
{
    const uint i = get_global_id(0);
    if (i >= N)
        return;
    for (uint j = 0; j < N; ++j)
        AT(C, i, j) = j % 2 == 0 ? AT(A, i, j) + AT(B, i, j) : AT(A, i, j) - AT(B, i, j);
}

__kernel void my_add_2d_col(__global const float *A, __global const float *B, __global float *C,
                            const uint N)
{
    const uint i = get_global_id(0), j = get_global_id(1);
    if (i >= N || j >= N)
        return;
    if (j % 2 == 0)
        AT(C, i, j) = AT(A, i, j) + AT(B, i, j);
    else
        AT(C, i, j) = AT(A, i, j) - AT(B, i, j);
}

__kernel void my_add_2d_unweave_col(__global const float *A, __global const float *B,
                                    __global float *C, const uint N)
{
    const uint i = get_global_id(0), g = get_global_id(1);
    if (i >= N || g >= N)
        return;
    const uint evens = (N + 1) / 2;
    if (g < evens) {
        const uint j = 2 * g;
        AT(C, i, j) = AT(A, i, j) + AT(B, i, j);
    } else {
        const uint j = 2 * (g - evens) + 1;
        AT(C, i, j) = AT(A, i, j) - AT(B, i, j);
    }
}
