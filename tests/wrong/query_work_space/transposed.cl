// Solution of query_work_space: one switch, one store.

__kernel void query_work_space(__global int *out, const int query)
{
    int value;
    switch (query) {
        case 0:  value = get_global_id(0);   break;
        case 1:  value = get_global_id(1);   break;
        case 2:  value = get_global_size(0); break;
        case 3:  value = get_global_size(1); break;
        case 4:  value = get_group_id(0);    break;
        case 5:  value = get_group_id(1);    break;
        case 6:  value = get_local_id(0);    break;
        case 7:  value = get_local_id(1);    break;
        case 8:  value = get_local_size(0);  break;
        case 9:  value = get_local_size(1);  break;
        case 10: value = get_num_groups(0);  break;
        case 11: value = get_num_groups(1);  break;
        case 12: value = get_work_dim();     break;
        default: value = -1;
    }
    // Dimension 0 runs along a row: rows are get_global_size(0) long.
    out[get_global_id(0) * get_global_size(1) + get_global_id(1)] = value;
}
