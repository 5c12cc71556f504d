package org.ntk4j.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DirectFileChannelTest {
    /**
     * Unaligned writes of random sizes from heap and direct buffers (crossing the 8 MiB stage several
     * times), positional patches both in bytes already on disk and in staged bytes: the file must hold
     * exactly the bytes of a plain in-memory model of the same operations.
     */
    @Test
    void writesAndPatchesLikeAPlainFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("out.bin");
        Files.createFile(file);
        int total = (21 << 20) + 12345;
        byte[] model = new byte[total];
        SplittableRandom r = new SplittableRandom(7);
        for (int i = 0; i < total; i++) {
            model[i] = (byte) r.nextInt();
        }
        boolean direct;
        try (FileChannel ch = DirectFileChannel.open(
                file, Long.MAX_VALUE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            direct = ch instanceof DirectFileChannel;
            int pos = 0;
            while (pos < total) {
                int len = Math.min(total - pos, 1 + r.nextInt(3 << 20));
                ByteBuffer b = r.nextBoolean() ? ByteBuffer.allocate(len + 3) : ByteBuffer.allocateDirect(len + 3);
                b.position(3); // an unaligned source
                b.put(model, pos, len).flip().position(3);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                pos += len;
                assertEquals(pos, ch.position());
                ch.position(pos);
                if (r.nextInt(3) == 0) { // patch somewhere behind: on disk or staged
                    int at = r.nextInt(pos);
                    int plen = Math.min(pos - at, 1 + r.nextInt(9000));
                    byte[] patch = new byte[plen];
                    for (int k = 0; k < plen; k++) {
                        patch[k] = (byte) r.nextInt();
                    }
                    System.arraycopy(patch, 0, model, at, plen);
                    ch.write(ByteBuffer.wrap(patch), at);
                    assertEquals(pos, ch.position());
                }
            }
        }
        System.out.println("direct channel used: " + direct);
        assertArrayEquals(model, Files.readAllBytes(file));
    }

    @Test
    void smallOutputsGetAPlainChannel(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("small.bin");
        try (FileChannel ch =
                DirectFileChannel.open(file, 1000, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            assertEquals(false, ch instanceof DirectFileChannel);
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        }
        assertArrayEquals(new byte[] {1, 2, 3}, Files.readAllBytes(file));
    }
}
