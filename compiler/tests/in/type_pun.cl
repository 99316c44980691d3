__kernel void type_pun(__global float *fptr, __global uint *bits) {
  size_t i = get_global_id(0);
  bits[i] = *(__global uint *)&fptr[i];
  *(__global uint *)&fptr[i] = bits[i] ^ 0x80000000u;
  __local uchar bytes[256];
  __local uint *words = (__local uint *)bytes;
  words[get_local_id(0) & 63] = bits[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  bits[i] = bytes[get_local_id(0) & 255] + ((__local ushort *)bytes)[get_local_id(0) & 127];
  bytes[get_local_id(0) & 255] = (uchar)i;
}
