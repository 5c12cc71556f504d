/*
 * What fresh memory costs on this machine at its first touch, and whether memory freed and asked for again in the
 * same process is cheap: maps SIZE_MB of anonymous memory three times in a row (unmapping it in between), with or
 * without asking for transparent huge pages (MADV_HUGEPAGE), and times writing one byte per 4 KiB page of it.
 *
 *   cc -O2 -o /tmp/first_touch benchmarks/memory/first_touch.c && /tmp/first_touch 256 0 && /tmp/first_touch 256 1
 *
 * On the benchmark machine (a Firecracker virtual machine whose free pages are handed back to the host) every
 * first touch costs ~15 µs per 4 KiB page (256 MB: ~0.95 s) in every round without huge pages; with them the first
 * round costs ~10 µs per 4 KiB and the next rounds ~0.3 µs, because the huge pages just freed are taken again
 * (benchmarks/RESULTS.md, "Memory's first touch, measured alone"). On a machine whose memory is already backed a
 * first touch costs well under 1 µs per page, and ntk4j's first-run costs there are smaller in proportion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: first_touch SIZE_MB HUGE(0|1)\n");
        return 2;
    }
    size_t n = (size_t) atol(argv[1]) << 20;
    int huge = atoi(argv[2]);
    size_t align = 2u << 20;
    for (int r = 0; r < 3; r++) {
        char *p = mmap(NULL, n + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        char *q = (char *) (((size_t) p + align - 1) & ~(align - 1));
        if (huge) {
            madvise(q, n, MADV_HUGEPAGE);
        }
        double t0 = now();
        for (size_t i = 0; i < n; i += 4096) {
            q[i] = 1;
        }
        double t1 = now();
        printf("round %d, %zu MB, huge pages %s: first touch %.3f s (%.1f us per 4 KiB page)\n", r + 1, n >> 20,
               huge ? "asked" : "not asked", t1 - t0, (t1 - t0) / (double) (n / 4096) * 1e6);
        munmap(p, n + align);
    }
    return 0;
}
