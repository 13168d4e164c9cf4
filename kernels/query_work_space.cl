// Exercise query_work_space: what does each work-item see?
//
// The range is 2-D. Every work-item writes one int, at
//     out[get_global_id(1) * get_global_size(0) + get_global_id(0)]
// and the value is that of query function number `query`:
//     0 get_global_id(0)    1 get_global_id(1)    2 get_global_size(0)
//     3 get_global_size(1)  4 get_group_id(0)     5 get_group_id(1)
//     6 get_local_id(0)     7 get_local_id(1)     8 get_local_size(0)
//     9 get_local_size(1)  10 get_num_groups(0)  11 get_num_groups(1)
//    12 get_work_dim()
//
// Check it with check("query_work_space"); then the NDRange explorer of the
// notebook draws what your kernel returns.

__kernel void query_work_space(__global int *out, const int query)
{
    int value = 0;
    // TODO: set value according to query (a switch is the clearest).

    // TODO: store value at this work-item's place in out.
}
