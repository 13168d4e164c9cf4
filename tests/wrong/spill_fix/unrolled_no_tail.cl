/* WRONG: the time loop is unrolled by 8 with no per-step guard, so when steps is not a multiple of 8 the last block reads and writes samples t >= steps, past the end of x and y.
 * Mistake: the blocks run while t0 < steps but each block does all 8 steps; the learner tested with
 *   steps a multiple of 8 only. The ring indices are constants, as intended.
 * Shows: steps % 8 != 0 (in particular steps < 8): out-of-bounds reads of x and writes of y for
 *   t = steps .. round_up(steps, 8) - 1. With steps a multiple of 8 it is right.
 */
#define TAP(j, k) (coef[k] * ring[((j) + 8 - (k)) & 7])

#define STEP(j)                                                                   \
    {                                                                             \
        const uint i = (t0 + (j)) * channels + c;                                 \
        ring[j] = x[i];                                                           \
        y[i] = TAP(j, 0) + TAP(j, 1) + TAP(j, 2) + TAP(j, 3)                      \
             + TAP(j, 4) + TAP(j, 5) + TAP(j, 6) + TAP(j, 7);                     \
    }

__kernel void spill_fix(__global const float *x, __global float *y, __constant float *coef,
                        const uint channels, const uint steps)
{
    const uint c = get_global_id(0);
    if (c >= channels)
        return;
    float ring[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (uint t0 = 0; t0 < steps; t0 += 8) {
        STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
    }
}
