/*
 * mandelbrot: an ordinary OpenCL host program (CL/cl.h and libc only).
 *
 * Builds a Mandelbrot kernel from source, runs it on one device, writes the
 * image as a PNG and prints the device name and a CRC-32 of the pixels.
 * Exits non-zero on any OpenCL error, printing the error (and the build log
 * when the build fails).
 *
 *   mandelbrot [-p PLATFORM] [-o FILE.png] [-s WIDTHxHEIGHT] [-i MAX_ITER]
 *
 * PLATFORM is a case-insensitive substring of CL_PLATFORM_NAME (default:
 * the first platform). On that platform the first GPU is used, or else the
 * first device of any type.
 *
 * Build: gcc -std=c11 -O2 -Wall -Wextra -o mandelbrot mandelbrot.c -lOpenCL
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kernel_source =
    "kernel void mandelbrot(global uchar *rgb, int width, int height,\n"
    "                       float x0, float y0, float step, int max_iter) {\n"
    "    int px = get_global_id(0);\n"
    "    int py = get_global_id(1);\n"
    "    if (px >= width || py >= height)\n"
    "        return;\n"
    "    float cr = x0 + px * step;\n"
    "    float ci = y0 + py * step;\n"
    "    float zr = 0.0f, zi = 0.0f;\n"
    "    int n = 0;\n"
    "    while (n < max_iter && zr * zr + zi * zi <= 4.0f) {\n"
    "        float t = zr * zr - zi * zi + cr;\n"
    "        zi = 2.0f * zr * zi + ci;\n"
    "        zr = t;\n"
    "        n++;\n"
    "    }\n"
    "    uchar r = 0, g = 0, b = 0;\n"
    "    if (n < max_iter) {\n"
    "        float t = (float)n / (float)max_iter;\n"
    "        float u = 1.0f - t;\n"
    "        r = (uchar)(9.0f * u * t * t * t * 255.0f);\n"
    "        g = (uchar)(15.0f * u * u * t * t * 255.0f);\n"
    "        b = (uchar)(8.5f * u * u * u * t * 255.0f);\n"
    "    }\n"
    "    global uchar *p = rgb + 3 * (py * width + px);\n"
    "    p[0] = r;\n"
    "    p[1] = g;\n"
    "    p[2] = b;\n"
    "}\n";

/* ---- errors ------------------------------------------------------------ */

static const char *cl_error_name(cl_int err) {
    switch (err) {
#define NAME(e) case e: return #e;
        NAME(CL_SUCCESS) NAME(CL_DEVICE_NOT_FOUND) NAME(CL_DEVICE_NOT_AVAILABLE)
        NAME(CL_COMPILER_NOT_AVAILABLE) NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        NAME(CL_OUT_OF_RESOURCES) NAME(CL_OUT_OF_HOST_MEMORY)
        NAME(CL_PROFILING_INFO_NOT_AVAILABLE) NAME(CL_MEM_COPY_OVERLAP)
        NAME(CL_IMAGE_FORMAT_MISMATCH) NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        NAME(CL_BUILD_PROGRAM_FAILURE) NAME(CL_MAP_FAILURE)
        NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        NAME(CL_COMPILE_PROGRAM_FAILURE) NAME(CL_LINKER_NOT_AVAILABLE)
        NAME(CL_LINK_PROGRAM_FAILURE) NAME(CL_DEVICE_PARTITION_FAILED)
        NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE) NAME(CL_INVALID_VALUE)
        NAME(CL_INVALID_DEVICE_TYPE) NAME(CL_INVALID_PLATFORM) NAME(CL_INVALID_DEVICE)
        NAME(CL_INVALID_CONTEXT) NAME(CL_INVALID_QUEUE_PROPERTIES)
        NAME(CL_INVALID_COMMAND_QUEUE) NAME(CL_INVALID_HOST_PTR)
        NAME(CL_INVALID_MEM_OBJECT) NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        NAME(CL_INVALID_IMAGE_SIZE) NAME(CL_INVALID_SAMPLER) NAME(CL_INVALID_BINARY)
        NAME(CL_INVALID_BUILD_OPTIONS) NAME(CL_INVALID_PROGRAM)
        NAME(CL_INVALID_PROGRAM_EXECUTABLE) NAME(CL_INVALID_KERNEL_NAME)
        NAME(CL_INVALID_KERNEL_DEFINITION) NAME(CL_INVALID_KERNEL)
        NAME(CL_INVALID_ARG_INDEX) NAME(CL_INVALID_ARG_VALUE) NAME(CL_INVALID_ARG_SIZE)
        NAME(CL_INVALID_KERNEL_ARGS) NAME(CL_INVALID_WORK_DIMENSION)
        NAME(CL_INVALID_WORK_GROUP_SIZE) NAME(CL_INVALID_WORK_ITEM_SIZE)
        NAME(CL_INVALID_GLOBAL_OFFSET) NAME(CL_INVALID_EVENT_WAIT_LIST)
        NAME(CL_INVALID_EVENT) NAME(CL_INVALID_OPERATION) NAME(CL_INVALID_GL_OBJECT)
        NAME(CL_INVALID_BUFFER_SIZE) NAME(CL_INVALID_MIP_LEVEL)
        NAME(CL_INVALID_GLOBAL_WORK_SIZE) NAME(CL_INVALID_PROPERTY)
        NAME(CL_INVALID_IMAGE_DESCRIPTOR) NAME(CL_INVALID_COMPILER_OPTIONS)
        NAME(CL_INVALID_LINKER_OPTIONS) NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
        NAME(CL_INVALID_PIPE_SIZE) NAME(CL_INVALID_DEVICE_QUEUE) NAME(CL_INVALID_SPEC_ID)
        NAME(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
    default: return "unknown OpenCL error";
    }
}

static void check(cl_int err, const char *call, int line) {
    if (err != CL_SUCCESS) {
        fprintf(stderr, "mandelbrot: line %d: %s failed: %s (%d)\n", line, call,
                cl_error_name(err), err);
        exit(1);
    }
}

/* CHECK(call): the call returns a cl_int. */
#define CHECK(call) check((call), #call, __LINE__)
/* For calls that report through errcode_ret: `x = f(..., &err); CHECK_ERR(f);` */
#define CHECK_ERR(name) check(err, #name, __LINE__)

static void die(const char *message) {
    fprintf(stderr, "mandelbrot: %s\n", message);
    exit(1);
}

static void *xmalloc(size_t size) {
    void *p = malloc(size);
    if (!p)
        die("out of memory");
    return p;
}

/* A string query of a platform or device, malloc'ed. */
static char *platform_string(cl_platform_id platform, cl_platform_info param) {
    size_t size = 0;
    CHECK(clGetPlatformInfo(platform, param, 0, NULL, &size));
    char *value = xmalloc(size + 1);
    CHECK(clGetPlatformInfo(platform, param, size, value, NULL));
    value[size] = '\0';
    return value;
}

static char *device_string(cl_device_id device, cl_device_info param) {
    size_t size = 0;
    CHECK(clGetDeviceInfo(device, param, 0, NULL, &size));
    char *value = xmalloc(size + 1);
    CHECK(clGetDeviceInfo(device, param, size, value, NULL));
    value[size] = '\0';
    return value;
}

static int contains_ignoring_case(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; haystack++) {
        size_t i = 0;
        while (i < n && haystack[i] &&
               tolower((unsigned char)haystack[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* ---- PNG (stored deflate blocks, no compression library) -------------- */

static uint32_t crc_table[256];

static void crc_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
}

/* CRC-32 (ISO 3309, as PNG and zlib's crc32 use): pass 0 to start. */
static uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len) {
    crc = ~crc;
    for (size_t i = 0; i < len; i++)
        crc = crc_table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static uint32_t adler32(const uint8_t *data, size_t len) {
    uint32_t a = 1, b = 0;
    for (size_t i = 0; i < len; i++) {
        a = (a + data[i]) % 65521;
        b = (b + a) % 65521;
    }
    return (b << 16) | a;
}

static void put_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void write_all(FILE *f, const void *data, size_t len) {
    if (fwrite(data, 1, len, f) != len)
        die("writing the PNG failed");
}

static void write_chunk(FILE *f, const char type[4], const uint8_t *data, uint32_t len) {
    uint8_t word[4];
    put_be32(word, len);
    write_all(f, word, 4);
    write_all(f, type, 4);
    write_all(f, data, len);
    uint32_t crc = crc32_update(0, (const uint8_t *)type, 4);
    crc = crc32_update(crc, data, len);
    put_be32(word, crc);
    write_all(f, word, 4);
}

/* Writes width x height 8-bit RGB pixels (rows top to bottom) as a PNG. */
static void write_png(const char *path, const uint8_t *rgb, uint32_t width, uint32_t height) {
    /* Scanlines: a filter byte (0, none) then the row. */
    size_t row = (size_t)width * 3;
    size_t raw_len = (row + 1) * height;
    uint8_t *raw = xmalloc(raw_len);
    for (uint32_t y = 0; y < height; y++) {
        raw[y * (row + 1)] = 0;
        memcpy(raw + y * (row + 1) + 1, rgb + y * row, row);
    }

    /* zlib stream: header, stored deflate blocks of at most 65535 bytes,
     * Adler-32 of the uncompressed data. */
    size_t blocks = raw_len / 65535 + 1;
    size_t z_len = 2 + blocks * 5 + raw_len + 4;
    uint8_t *z = xmalloc(z_len);
    size_t at = 0;
    z[at++] = 0x78; /* deflate, 32 KiB window */
    z[at++] = 0x01; /* no preset dictionary, fastest; (0x78 << 8 | 0x01) % 31 == 0 */
    for (size_t done = 0, b = 0; b < blocks; b++) {
        size_t n = raw_len - done < 65535 ? raw_len - done : 65535;
        z[at++] = b + 1 == blocks; /* BFINAL, BTYPE 00 (stored) */
        z[at++] = (uint8_t)n;
        z[at++] = (uint8_t)(n >> 8);
        z[at++] = (uint8_t)~n;
        z[at++] = (uint8_t)(~n >> 8);
        memcpy(z + at, raw + done, n);
        at += n;
        done += n;
    }
    put_be32(z + at, adler32(raw, raw_len));
    at += 4;
    if (at != z_len || z_len > 0x7FFFFFFF)
        die("internal error sizing the PNG data");

    uint8_t ihdr[13];
    put_be32(ihdr, width);
    put_be32(ihdr + 4, height);
    ihdr[8] = 8;  /* bit depth */
    ihdr[9] = 2;  /* colour type: RGB */
    ihdr[10] = 0; /* compression: deflate */
    ihdr[11] = 0; /* filter method 0 */
    ihdr[12] = 0; /* no interlace */

    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    write_all(f, signature, sizeof signature);
    write_chunk(f, "IHDR", ihdr, sizeof ihdr);
    write_chunk(f, "IDAT", z, (uint32_t)z_len);
    write_chunk(f, "IEND", NULL, 0);
    if (fclose(f) != 0)
        die("closing the PNG failed");
    free(z);
    free(raw);
}

/* ---- OpenCL ------------------------------------------------------------- */

static cl_platform_id pick_platform(const char *wanted) {
    cl_uint count = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &count);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || (err == CL_SUCCESS && count == 0))
        die("no OpenCL platform found (is an ICD registered? see OCL_ICD_VENDORS)");
    CHECK_ERR(clGetPlatformIDs);
    cl_platform_id *ids = xmalloc(count * sizeof *ids);
    CHECK(clGetPlatformIDs(count, ids, NULL));
    cl_platform_id chosen = NULL;
    for (cl_uint i = 0; i < count && !chosen; i++) {
        char *name = platform_string(ids[i], CL_PLATFORM_NAME);
        if (!wanted || contains_ignoring_case(name, wanted))
            chosen = ids[i];
        free(name);
    }
    free(ids);
    if (!chosen) {
        fprintf(stderr, "mandelbrot: no platform named like \"%s\"\n", wanted);
        exit(1);
    }
    return chosen;
}

static cl_device_id pick_device(cl_platform_id platform) {
    cl_device_id device = NULL;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, NULL);
    if (err == CL_DEVICE_NOT_FOUND)
        err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    CHECK_ERR(clGetDeviceIDs);
    return device;
}

static void usage(void) {
    fprintf(stderr, "usage: mandelbrot [-p PLATFORM] [-o FILE.png] [-s WIDTHxHEIGHT] "
                    "[-i MAX_ITER]\n");
    exit(2);
}

int main(int argc, char **argv) {
    const char *wanted_platform = NULL;
    const char *out_path = "mandelbrot.png";
    int width = 1024, height = 768, max_iter = 256;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "-p") && value)
            wanted_platform = value;
        else if (!strcmp(argv[i], "-o") && value)
            out_path = value;
        else if (!strcmp(argv[i], "-s") && value) {
            if (sscanf(value, "%dx%d", &width, &height) != 2 || width < 1 || height < 1 ||
                width > 16384 || height > 16384)
                usage();
        } else if (!strcmp(argv[i], "-i") && value) {
            max_iter = atoi(value);
            if (max_iter < 1)
                usage();
        } else
            usage();
        i++;
    }

    cl_platform_id platform = pick_platform(wanted_platform);
    cl_device_id device = pick_device(platform);
    char *platform_name = platform_string(platform, CL_PLATFORM_NAME);
    char *device_name = device_string(device, CL_DEVICE_NAME);
    printf("platform: %s\n", platform_name);
    printf("device: %s\n", device_name);

    cl_int err;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK_ERR(clCreateContext);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CHECK_ERR(clCreateCommandQueueWithProperties);

    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, NULL, &err);
    CHECK_ERR(clCreateProgramWithSource);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t size = 0;
        if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) ==
            CL_SUCCESS) {
            char *log = xmalloc(size + 1);
            if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) !=
                CL_SUCCESS)
                size = 0;
            log[size] = '\0';
            fprintf(stderr, "mandelbrot: build log:\n%s\n", log);
            free(log);
        }
        CHECK_ERR(clBuildProgram);
    }
    cl_kernel kernel = clCreateKernel(program, "mandelbrot", &err);
    CHECK_ERR(clCreateKernel);

    size_t bytes = (size_t)width * height * 3;
    cl_mem image = clCreateBuffer(context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CHECK_ERR(clCreateBuffer);

    /* The view: x in [-2.5, 1.0], centred vertically, square pixels. */
    float step = 3.5f / (float)width;
    float x0 = -2.5f;
    float y0 = -0.5f * step * (float)height;
    CHECK(clSetKernelArg(kernel, 0, sizeof image, &image));
    CHECK(clSetKernelArg(kernel, 1, sizeof width, &width));
    CHECK(clSetKernelArg(kernel, 2, sizeof height, &height));
    CHECK(clSetKernelArg(kernel, 3, sizeof x0, &x0));
    CHECK(clSetKernelArg(kernel, 4, sizeof y0, &y0));
    CHECK(clSetKernelArg(kernel, 5, sizeof step, &step));
    CHECK(clSetKernelArg(kernel, 6, sizeof max_iter, &max_iter));
    size_t global[2] = {(size_t)width, (size_t)height};
    CHECK(clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL));

    uint8_t *rgb = xmalloc(bytes);
    CHECK(clEnqueueReadBuffer(queue, image, CL_TRUE, 0, bytes, rgb, 0, NULL, NULL));

    crc_init();
    size_t inside = 0;
    for (size_t i = 0; i < bytes; i += 3)
        inside += rgb[i] == 0 && rgb[i + 1] == 0 && rgb[i + 2] == 0;
    write_png(out_path, rgb, (uint32_t)width, (uint32_t)height);
    printf("image: %s (%dx%d, %d iterations, %zu black pixels)\n", out_path, width, height,
           max_iter, inside);
    printf("checksum: %08x\n", crc32_update(0, rgb, bytes));

    free(rgb);
    CHECK(clReleaseMemObject(image));
    CHECK(clReleaseKernel(kernel));
    CHECK(clReleaseProgram(program));
    CHECK(clReleaseCommandQueue(queue));
    CHECK(clReleaseContext(context));
    free(device_name);
    free(platform_name);
    return 0;
}
