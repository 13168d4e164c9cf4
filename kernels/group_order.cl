// Demo of notebook 03: in which order does the device start work-groups?
//
// The first work-item of each group takes a ticket from a shared counter with an atomic
// increment: ticket 0 goes to the first group to get there, and so on. OpenCL promises
// nothing about this order; the notebook shows what this device does.

__kernel void group_order(__global int *ticket, volatile __global int *counter)
{
    if (get_local_id(0) == 0)
        ticket[get_group_id(0)] = atomic_inc(counter);
}
