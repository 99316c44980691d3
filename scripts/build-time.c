// build-time: wall time of building OpenCL C programs on the first device of
// the first platform, all in one process (docs/performance.md, "build
// times").
//
//   gcc -O2 -o build-time scripts/build-time.c -lOpenCL
//   build-time [-l] [-o OPTIONS] FILE.cl...
//
// Each FILE is built with clBuildProgram, or with -l as hashcat does:
// clCompileProgram (the options) then clLinkProgram of that one object.
// The options are OPTIONS, else the contents of FILE.cl.opts if it exists
// (newlines read as spaces), else none. Prints one line per file and the
// total; exits 1 if a build failed (its log on stderr). Set
// FERROCL_NO_COMPILE_CACHE=1 to measure ferrocl's compiler, and
// FERROCL_TIME_PASSES=1 for its per-tool and per-pass times.
#define _POSIX_C_SOURCE 200809L
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc(n + 1);
  if (!s || fread(s, 1, n, f) != (size_t)n) {
    fclose(f);
    free(s);
    return NULL;
  }
  s[n] = 0;
  fclose(f);
  return s;
}

static void print_log(cl_program p, cl_device_id d) {
  size_t n = 0;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  char *log = malloc(n + 1);
  if (!log) return;
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, log, NULL);
  log[n] = 0;
  fprintf(stderr, "%s\n", log);
  free(log);
}

int main(int argc, char **argv) {
  int link = 0, files = 0, failed = 0;
  const char *options = NULL;
  cl_platform_id platform;
  cl_device_id device;
  cl_int err;
  if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
      clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
    fprintf(stderr, "build-time: no OpenCL device\n");
    return 2;
  }
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  if (err != CL_SUCCESS) {
    fprintf(stderr, "build-time: clCreateContext: %d\n", err);
    return 2;
  }
  double total = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-l")) {
      link = 1;
      continue;
    }
    if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      options = argv[++i];
      continue;
    }
    const char *file = argv[i];
    char *source = slurp(file);
    if (!source) {
      perror(file);
      return 2;
    }
    char opts_path[4096];
    snprintf(opts_path, sizeof opts_path, "%s.opts", file);
    char *file_options = options ? NULL : slurp(opts_path);
    if (file_options)
      for (char *c = file_options; *c; c++)
        if (*c == '\n') *c = ' ';
    const char *opts = options ? options : file_options ? file_options : "";
    const char *text = source;
    cl_program program = clCreateProgramWithSource(context, 1, &text, NULL, &err);
    cl_program built = program;
    double t0 = now(), compile = 0;
    if (link) {
      err = clCompileProgram(program, 1, &device, opts, 0, NULL, NULL, NULL, NULL);
      compile = now() - t0;
      if (err == CL_SUCCESS) {
        built = clLinkProgram(context, 1, &device, "", 1, &program, NULL, NULL, &err);
        if (!built) built = program;
      }
    } else {
      err = clBuildProgram(program, 1, &device, opts, NULL, NULL);
    }
    double t = now() - t0;
    total += t;
    files++;
    cl_uint kernels = 0;
    if (err == CL_SUCCESS) clCreateKernelsInProgram(built, 0, NULL, &kernels);
    if (link)
      printf("%s: %.2f s (clCompileProgram %.2f s, clLinkProgram %.2f s), %u kernels%s\n", file,
             t, compile, t - compile, kernels, err ? " FAILED" : "");
    else
      printf("%s: %.2f s, %u kernels%s\n", file, t, kernels, err ? " FAILED" : "");
    if (err != CL_SUCCESS) {
      failed++;
      print_log(built, device);
    }
    if (built != program) clReleaseProgram(built);
    clReleaseProgram(program);
    free(file_options);
    free(source);
  }
  printf("total %.2f s, %d programs, %d failed\n", total, files, failed);
  return failed != 0;
}
