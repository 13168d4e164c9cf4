// Exercise to_half: store floats as half floats (16 bits), half the bytes to transfer.
//
// out[i] = in[i] rounded to the nearest half (a tie goes to the even one), for every
// i < n; from 65520 up (half a step past 65504, half's largest value) the result is
// infinity, and tiny values become subnormal halves or zero. The global size may be rounded up past n.
// The host receives out as numpy's float16.
//
// Check it from the notebook with check("to_half"), or from a shell:
//     python -m helpers check to_half

__kernel void to_half(__global const float *in,
                      __global half *out,
                      const uint n)
{
    // TODO: convert this work-item's element and store it as a half.
}
