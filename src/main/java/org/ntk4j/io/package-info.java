/**
 * Floor 2 of 12: files that are neither specs nor reports: weights ({@link org.ntk4j.io.Weights}, {@link
 * org.ntk4j.io.Safetensors}), the output files of a kernel job with their temporaries and checksums ({@link
 * org.ntk4j.io.KernelFiles}), numeric CSV ({@link org.ntk4j.io.Csv}), NPY headers checked against their bytes ({@link
 * org.ntk4j.io.NpyHeader}). The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.io;
