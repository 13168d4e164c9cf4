// A stand-in for <CL/cl.h>: Oclgrind's plugin headers (common.h, Plugin.h) name only these few
// types, and the pip wheel of Oclgrind ships no OpenCL headers. Only what the headers need.
#ifndef COURSE_CL_STUB_H
#define COURSE_CL_STUB_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef cl_bitfield cl_mem_flags;
typedef cl_bitfield cl_map_flags;
typedef cl_uint cl_channel_order;
typedef cl_uint cl_channel_type;
typedef cl_uint cl_mem_object_type;
typedef struct _cl_mem* cl_mem;

typedef struct _cl_image_format
{
  cl_channel_order image_channel_order;
  cl_channel_type image_channel_data_type;
} cl_image_format;

typedef struct _cl_image_desc
{
  cl_mem_object_type image_type;
  size_t image_width;
  size_t image_height;
  size_t image_depth;
  size_t image_array_size;
  size_t image_row_pitch;
  size_t image_slice_pitch;
  cl_uint num_mip_levels;
  cl_uint num_samples;
  cl_mem buffer;
} cl_image_desc;

#endif
