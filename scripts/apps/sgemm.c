// SGEMM through libclblast (CLBlastSgemm), checked against a CPU reference.
//
//   sgemm [PLATFORM [N [REPS]]]
//
// Runs on the first device of platform number PLATFORM (default 0). N and
// REPS default to 4096 and 10 on a GPU, 512 and 3 otherwise. First a set
// of odd shapes, transposes, offsets and leading dimensions, each checked in
// full; then C = alpha*A*B + beta*C for N x N x N, timed over REPS calls after
// one warm-up, checked in full up to N = 1024 and at 20000 sampled entries
// above. Prints "GFLOPS <value>" and exits 0 only if every check passed.
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 120
#include <clblast_c.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static cl_context ctx;
static cl_command_queue queue;

static void die(const char *what, long code) {
  fprintf(stderr, "sgemm: %s failed: %ld\n", what, code);
  exit(2);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static unsigned long long rng = 88172645463325252ULL;
static float rnd(void) {  // xorshift64, uniform in [-1, 1)
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (float)((rng >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

static cl_mem upload(const float *host, size_t n) {
  cl_int err;
  cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof(float), (void *)host, &err);
  if (err != CL_SUCCESS) die("clCreateBuffer", err);
  return m;
}

// Element (r, c) of a column-major matrix with leading dimension ld, stored
// transposed if t.
static float at(const float *m, size_t ld, int t, size_t r, size_t c) {
  return t ? m[c + r * ld] : m[r + c * ld];
}

// Checks entry (i, j) of C (column-major) against alpha*op(A)*op(B) + beta*C0
// computed in double; the bound scales with the sum of the magnitudes.
static int check(const float *a, size_t lda, int ta, const float *b, size_t ldb, int tb, const float *c0,
                 const float *c, size_t ldc, size_t k, float alpha, float beta, size_t i, size_t j) {
  double sum = 0, mag = 0;
  for (size_t p = 0; p < k; p++) {
    double x = (double)at(a, lda, ta, i, p) * at(b, ldb, tb, p, j);
    sum += x, mag += fabs(x);
  }
  double want = alpha * sum + beta * c0[i + j * ldc];
  double bound = 1e-5 * (fabs(alpha) * mag + fabs(beta * c0[i + j * ldc])) * (1 + sqrt((double)k)) + 1e-6;
  double got = c[i + j * ldc];
  if (!(fabs(got - want) <= bound)) {
    fprintf(stderr, "sgemm: C[%zu,%zu] = %.9g, expected %.9g (k=%zu)\n", i, j, got, want, k);
    return 0;
  }
  return 1;
}

// 1 + reps CLBlastSgemm calls (column-major) on fresh random data; returns
// the seconds per timed call and checks all entries (or `samples` random ones).
static double run(size_t m, size_t n, size_t k, int ta, int tb, size_t pad, size_t off, int reps, size_t samples,
                  int *ok) {
  size_t lda = (ta ? k : m) + pad, ldb = (tb ? n : k) + pad, ldc = m + pad;
  size_t na = off + lda * (ta ? m : k), nb = off + ldb * (tb ? k : n), nc = off + ldc * n;
  float *a = malloc(na * sizeof(float)), *b = malloc(nb * sizeof(float));
  float *c0 = malloc(nc * sizeof(float)), *c = malloc(nc * sizeof(float));
  if (!a || !b || !c0 || !c) die("malloc", 0);
  for (size_t i = 0; i < na; i++) a[i] = rnd();
  for (size_t i = 0; i < nb; i++) b[i] = rnd();
  for (size_t i = 0; i < nc; i++) c0[i] = rnd();
  cl_mem da = upload(a, na), db = upload(b, nb), dc = upload(c0, nc);
  const float alpha = 0.75f, beta = reps > 0 ? 0.0f : -0.5f;  // timed calls repeat: beta 0 keeps C checkable
  double t0 = 0;
  for (int r = 0; r <= reps; r++) {
    if (r == 1) t0 = now();  // the first call (kernel builds, tuning) is not timed
    CLBlastStatusCode s = CLBlastSgemm(CLBlastLayoutColMajor, ta ? CLBlastTransposeYes : CLBlastTransposeNo,
                                       tb ? CLBlastTransposeYes : CLBlastTransposeNo, m, n, k, alpha, da, off, lda,
                                       db, off, ldb, beta, dc, off, ldc, &queue, NULL);
    if (s != CLBlastSuccess) die("CLBlastSgemm", s);
    if (r == 0 || r == reps) {
      cl_int e = clFinish(queue);
      if (e != CL_SUCCESS) die("clFinish", e);
    }
  }
  double secs = reps > 0 ? (now() - t0) / reps : 0;
  cl_int e = clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, nc * sizeof(float), c, 0, NULL, NULL);
  if (e != CL_SUCCESS) die("clEnqueueReadBuffer", e);
  // C's padding and the offset before it must be untouched.
  for (size_t j = 0; j < n; j++)
    for (size_t i = m; i < ldc; i++)
      if (c[off + i + j * ldc] != c0[off + i + j * ldc]) *ok = 0;
  for (size_t i = 0; i < off; i++)
    if (c[i] != c0[i]) *ok = 0;
  if (!*ok) fprintf(stderr, "sgemm: wrote outside C (m=%zu n=%zu pad=%zu off=%zu)\n", m, n, pad, off);
  int bad = 0;
  if (!samples) {
    for (size_t j = 0; j < n && bad < 5; j++)
      for (size_t i = 0; i < m && bad < 5; i++)
        bad += !check(a + off, lda, ta, b + off, ldb, tb, c0 + off, c + off, ldc, k, alpha, beta, i, j);
  } else {
    for (size_t s = 0; s < samples && bad < 5; s++) {
      size_t i = (size_t)((rnd() + 1) / 2 * m) % m, j = (size_t)((rnd() + 1) / 2 * n) % n;
      bad += !check(a + off, lda, ta, b + off, ldb, tb, c0 + off, c + off, ldc, k, alpha, beta, i, j);
    }
  }
  if (bad) {
    fprintf(stderr, "sgemm: wrong results for m=%zu n=%zu k=%zu ta=%d tb=%d pad=%zu off=%zu\n", m, n, k, ta, tb, pad,
            off);
    *ok = 0;
  }
  clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dc);
  free(a), free(b), free(c0), free(c);
  return secs;
}

int main(int argc, char **argv) {
  unsigned p = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  cl_platform_id platforms[16];
  cl_uint np = 0;
  cl_int err = clGetPlatformIDs(16, platforms, &np);
  if (err != CL_SUCCESS) die("clGetPlatformIDs", err);
  if (p >= np) die("platform index", p);
  cl_device_id device;
  err = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &device, NULL);
  if (err != CL_SUCCESS) die("clGetDeviceIDs", err);
  char name[256] = "";
  cl_device_type type = 0;
  clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, NULL);
  clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  int gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : gpu ? 4096 : 512;
  int reps = argc > 3 ? atoi(argv[3]) : gpu ? 10 : 3;
  if (n == 0 || reps < 1) die("arguments", 0);
  printf("device %s\n", name);
  ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) die("clCreateContext", err);
  queue = clCreateCommandQueue(ctx, device, 0, &err);
  if (err != CL_SUCCESS) die("clCreateCommandQueue", err);

  int ok = 1;
  static const size_t shapes[][6] = {  // m n k ta tb pad; odd sizes take CLBlast's padded/direct paths
      {1, 1, 1, 0, 0, 0}, {7, 5, 3, 0, 1, 2}, {33, 65, 17, 1, 0, 1}, {67, 129, 100, 1, 1, 3}, {128, 64, 256, 0, 0, 0},
      {200, 300, 31, 0, 1, 5},
  };
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    run(shapes[s][0], shapes[s][1], shapes[s][2], (int)shapes[s][3], (int)shapes[s][4], shapes[s][5], s, 0, 0, &ok);
  double secs = run(n, n, n, 0, 0, 0, 0, reps, n > 1024 ? 20000 : 0, &ok);
  double gflops = 2.0 * n * n * n / secs * 1e-9;
  printf("sgemm %zux%zux%zu: %.4f s per call\n", n, n, n, secs);
  printf("GFLOPS %.2f\n", gflops);
  printf("%s\n", ok ? "verified" : "WRONG RESULTS");
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return ok ? 0 : 1;
}
