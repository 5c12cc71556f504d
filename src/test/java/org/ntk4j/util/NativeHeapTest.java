package org.ntk4j.util;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.jna.Native;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** glibc keeps small freed blocks below a live one; {@link NativeHeap#trim()} returns their pages. */
class NativeHeapTest {
    private static long rss() throws Exception {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new IllegalStateException("no VmRSS");
    }

    @Test
    void trimReturnsFreedBlocksThatMallocKeeps() throws Exception {
        Assumptions.assumeTrue(NativeHeap.available(), "needs glibc's malloc_trim");
        int blocks = 1024;
        long size = 64 << 10; // below glibc's mmap threshold: served from the heap, kept there when freed
        long[] p = new long[blocks];
        for (int i = 0; i < blocks; i++) {
            p[i] = Native.malloc(size);
            new com.sun.jna.Pointer(p[i]).setMemory(0, size, (byte) 1);
        }
        long pin = Native.malloc(size); // a live block above them: the heap's top cannot shrink on its own
        long before = rss();
        for (long a : p) {
            Native.free(a);
        }
        long freed = rss();
        NativeHeap.trim();
        long trimmed = rss();
        Native.free(pin);
        // 64 MiB were freed: malloc keeps most of them resident, the trim hands at least 48 MiB back
        assertTrue(before - freed < 16L << 20, "malloc returned the blocks by itself: " + (before - freed));
        assertTrue(freed - trimmed >= 48L << 20, "trim released only " + ((freed - trimmed) >> 20) + " MiB");
    }
}
