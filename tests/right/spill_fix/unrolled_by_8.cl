/* RIGHT: the time loop is unrolled by 8, so every index into the private ring is a compile-time constant and the ring can stay in registers.
 * Step t0 + j writes ring[j] and tap k reads ring[(j - k) & 7]; j and k are literals once STEP and
 * TAP are expanded. Every step is guarded by t0 + j < steps, so steps < 8 and steps that are not a
 * multiple of 8 are handled, and the ring starts at zero for the samples before t = 0.
 */
#define TAP(j, k) (coef[k] * ring[((j) + 8 - (k)) & 7])

#define STEP(j)                                                                   \
    if (t0 + (j) < steps) {                                                       \
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
