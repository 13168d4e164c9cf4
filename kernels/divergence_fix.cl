// Exercise divergence_fix (notebook 10): the same result as the kernel below, without making
// the work-items of a warp take different branches.
//
// For every i < n, y[i] is x[i] sent `rounds` times through a step that depends on the parity
// of i:   even i: v = 0.9f * v + 0.1f        odd i: v = 0.25f * v * v - 0.5f
//
// The kernel you start from (kernels/studies/level3.cl, `branches_woven`) is correct:
//
//     const uint i = get_global_id(0);
//     if (i >= n) return;
//     float v = x[i];
//     if (i % 2 == 0)
//         for (uint r = 0; r < rounds; ++r) v = 0.9f * v + 0.1f;
//     else
//         for (uint r = 0; r < rounds; ++r) v = 0.25f * v * v - 0.5f;
//     y[i] = v;
//
// In a warp, the even work-items run the first loop while the odd ones wait, then the other way
// round: the warp runs both loops. Remedies from the training: reorder the work so that all the
// work-items of a warp take the same branch (static thread reordering), or replace the branch by
// arithmetic with a lookup table (both steps are v = (a v + b) v + c for some a, b, c). The
// global size may exceed n.
//
// Check it with check("divergence_fix"): the verdict measures your kernel beside the one above.

__kernel void divergence_fix(__global const float *x,
                             __global float *y,
                             const uint n,
                             const uint rounds)
{
    // TODO
}
