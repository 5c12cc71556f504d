package org.ntk4j.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.ntk4j.model.Network;
import org.ntk4j.model.Param;
import org.ntk4j.spec.ModelSpec;

/**
 * {@link Weights#write}: stored (not deflated) {@code <name>.npy} entries that DJL's NPZ decoder ({@link Weights#read})
 * gives back exactly, in every type a parameter or optimizer state has, the same bytes for the same arrays, and a network's checkpointed weights round
 * trip through {@link Network#saveParameters} and {@link Network#loadParameters} bit for bit.
 */
class WeightsWriteTest {
    @TempDir
    Path dir;

    @Test
    void storedEntriesReadBackExactly() throws Exception {
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray a = m.randomNormal(new Shape(3, 5));
            NDArray b = m.randomNormal(new Shape(7)).toType(DataType.FLOAT64, false);
            NDArray c = m.arange(0, 6, 1, DataType.INT64).reshape(2, 3);
            NDArray s = m.create(2.5f); // 0-d
            Path f = dir.resolve("w.npz");
            Weights.write(f, List.of("a", "opt.0.m1", "c", "s"), List.of(a, b, c, s));
            List<String> names = new ArrayList<>();
            try (ZipFile z = new ZipFile(f.toFile())) {
                for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
                    ZipEntry x = e.nextElement();
                    assertEquals(ZipEntry.STORED, x.getMethod(), x.getName());
                    names.add(x.getName());
                }
            }
            assertEquals(List.of("a.npy", "opt.0.m1.npy", "c.npy", "s.npy"), names);
            NDList back = Weights.read(f, m);
            assertEquals(4, back.size());
            NDArray[] want = {a, b, c, s};
            String[] wantNames = {"a", "opt.0.m1", "c", "s"};
            for (int k = 0; k < 4; k++) {
                assertEquals(wantNames[k], back.get(k).getName());
                assertEquals(want[k].getShape(), back.get(k).getShape(), wantNames[k]);
                assertEquals(want[k].getDataType(), back.get(k).getDataType(), wantNames[k]);
                assertArrayEquals(want[k].toByteArray(), back.get(k).toByteArray(), wantNames[k]);
            }
            assertEquals(0, Files.list(dir).filter(p -> !p.equals(f)).count(), "no temporary left");
            Path again = dir.resolve("again.npz");
            Thread.sleep(2100); // past the zip format's 2-second time resolution
            Weights.write(again, List.of("a", "opt.0.m1", "c", "s"), List.of(a, b, c, s));
            assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(again), "the same arrays, the same bytes");
        }
    }

    @Test
    void networkWeightsRoundTripBitForBit() throws Exception {
        try (NDManager m = NDManager.newBaseManager();
                Network a = Network.build(ModelSpec.resolve("mlp-relu"), 1, m);
                Network b = Network.build(ModelSpec.resolve("mlp-relu"), 2, m)) {
            Path f = dir.resolve("weights.npz");
            a.saveParameters(f);
            b.loadParameters(f);
            List<Param> pa = a.params();
            List<Param> pb = b.params();
            assertEquals(pa.size(), pb.size());
            for (int k = 0; k < pa.size(); k++) {
                assertArrayEquals(
                        pa.get(k).value().toByteArray(),
                        pb.get(k).value().toByteArray(),
                        pa.get(k).name());
            }
        }
    }
}
