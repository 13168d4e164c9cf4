/* A driver that aborts: preloaded (LD_PRELOAD) into a process, it stands in front of the OpenCL
 * loader's clBuildProgram. A build whose options contain $FAKE_CRASH_OPTION prints what LLVM prints
 * when it crashes, leaves a half-written entry in PoCL's kernel cache (as a compiler that dies
 * mid-way does) and aborts the process. Every other build goes to the real loader, named by
 * $FAKE_CRASH_LIBOPENCL. Each abort appends a line to $FAKE_CRASH_LOG, so a test counts them.
 * With $FAKE_BUILD_NOTHING set, every build fails instead, with a compiler's error in the build
 * log (as pip's PoCL 3.0 on a processor its LLVM does not know: "unknown target CPU 'generic'"). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef int (*build_fn)(void *, unsigned, const void *, const char *, void *, void *);

int clBuildProgram(void *program, unsigned num_devices, const void *devices, const char *options,
                   void *notify, void *user_data)
{
    const char *trigger = getenv("FAKE_CRASH_OPTION");
    if (trigger && *trigger && options && strstr(options, trigger)) {
        const char *log = getenv("FAKE_CRASH_LOG");
        if (log) {
            FILE *f = fopen(log, "a");
            if (f) { fprintf(f, "abort %s\n", options); fclose(f); }
        }
        const char *kcache = getenv("POCL_CACHE_DIR");
        if (kcache) {
            char path[4096];
            snprintf(path, sizeof path, "%s/ZZ", kcache);
            mkdir(path, 0755);
            snprintf(path, sizeof path, "%s/ZZ/HALFWRITTENENTRY", kcache);
            mkdir(path, 0755);
            snprintf(path, sizeof path, "%s/ZZ/HALFWRITTENENTRY/program.bc", kcache);
            FILE *f = fopen(path, "w");
            if (f) { fputs("half", f); fclose(f); }
        }
        fprintf(stderr, "LLVM ERROR: Cannot select: t42: v16f32 = fake crash of the course's tests\n");
        fflush(stderr);
        abort();
    }
    static build_fn real = NULL;
    if (!real) {
        void *lib = dlopen(getenv("FAKE_CRASH_LIBOPENCL"), RTLD_NOW | RTLD_NOLOAD);
        if (!lib)
            lib = dlopen(getenv("FAKE_CRASH_LIBOPENCL"), RTLD_NOW);
        real = lib ? (build_fn)dlsym(lib, "clBuildProgram") : NULL;
        if (!real) {
            fprintf(stderr, "fake driver: no real clBuildProgram in %s\n",
                    getenv("FAKE_CRASH_LIBOPENCL"));
            abort();
        }
    }
    const char *nothing = getenv("FAKE_BUILD_NOTHING");
    if (nothing && *nothing) {
        /* every kernel fails to compile: the real compiler writes an error into the build log */
        return real(program, num_devices, devices, "-D__kernel=unknown_target_cpu_generic",
                    notify, user_data);
    }
    return real(program, num_devices, devices, options, notify, user_data);
}
