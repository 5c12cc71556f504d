/*
 * Preloaded by the ntk4j launcher on AMD processors when NTK4J_MKL_AMD=on (LD_PRELOAD).
 *
 * Intel oneMKL, linked into the bundled libtorch and into PyTorch's pip wheels, chooses its kernels by CPU vendor
 * first: on a processor that does not say "GenuineIntel" it runs a generic code path, whatever instructions the
 * processor has. Its service function mkl_serv_intel_cpu_true() is exported by libtorch_cpu.so and called through
 * the dynamic linker, so this definition replaces it: MKL then chooses by instruction set (AVX-512 or AVX2, from
 * cpuid) as it does on an Intel processor. On the 2-core AMD EPYC (Zen 5) machine of benchmarks/RESULTS.md the
 * GEMMs of the MLP training step (batch 128, 784-512-512-10) ran 2x faster. Only MKL's choice of kernel changes;
 * the kernels round differently from the generic path's in the last bits.
 */
int mkl_serv_intel_cpu_true(void) {
    return 1;
}
