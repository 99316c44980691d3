__kernel void matmul(__global const float *A, __global const float *B, __global float *C, int M, int N, int K) {
  int row = get_global_id(1);
  int col = get_global_id(0);
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; k++)
    acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
