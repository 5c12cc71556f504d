package org.ntk4j.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.util.Map;
import org.apache.spark.resource.ResourceInformation;
import org.junit.jupiter.api.Test;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.request.KernelOption;

/** The command line of the Spark driver, and the device a task takes from Spark's resources. */
class SparkArgsTest {
    @Test
    void parsesTheOptionsOfNtk4jKernelAndTheCluster() {
        SparkKernelConfig c = SparkArgs.parse(new String[] {
                    "--model",
                    "mlp-quickstart",
                    "--weights=hdfs:///w.npz",
                    "--seed",
                    "7",
                    "--dataset",
                    "mnist",
                    "--n",
                    "60000",
                    "--test",
                    "10000",
                    "--mode",
                    "full",
                    "--per-layer",
                    "--dtype",
                    "float64",
                    "--out",
                    "s3a://b/k",
                    "--data-root",
                    "hdfs:///data",
                    "--task-memory",
                    "6g",
                    "--tile",
                    "512",
                    "--shard-size",
                    "4096",
                    "--dry-run",
                    "--executors",
                    "32",
                    "--pad",
                    "2"
                })
                .config();
        assertEquals("mlp-quickstart", c.model());
        assertEquals("hdfs:///w.npz", c.weights());
        assertNull(c.request().weights());
        assertEquals(7, c.seed());
        assertEquals("mnist", c.dataset());
        assertEquals(60000, c.n());
        assertEquals(10000, c.test());
        assertEquals(2, c.pad());
        assertEquals(Mode.FULL, c.mode());
        assertTrue(c.perLayer());
        assertEquals(DataType.FLOAT64, c.dtype());
        assertEquals("s3a://b/k", c.out());
        assertEquals("hdfs:///data", c.dataRoot());
        assertEquals(6L << 30, c.taskMemory());
        assertEquals(512, c.tile());
        assertEquals(4096, c.shardSize());
        assertTrue(c.dryRun());
        assertEquals(32, c.executors());
        SparkKernelConfig d = SparkArgs.parse(new String[] {"--model", "m.json", "--out", "o"})
                .config();
        assertEquals(Mode.TRACE, d.mode());
        assertEquals(DataType.FLOAT32, d.dtype());
        assertEquals("mnist-subset", d.dataset());
        assertNull(d.pad());
        assertEquals(SparkKernelConfig.DEFAULT_TASK_MEMORY, d.taskMemory());
        assertTrue(SparkArgs.parse(new String[] {"--help"}).help());
    }

    @Test
    void approxPlansTheNystromBlocks() {
        SparkKernelConfig c = SparkArgs.parse(
                        new String[] {"--model", "m", "--out", "o", "--approx", "nystrom:64", "--approx-holdout", "100"
                        })
                .config();
        assertEquals("nystrom:64:uniform", c.approx().spec().toString());
        assertEquals(100, c.approx().holdout());
        assertNull(SparkArgs.parse(new String[] {"--model", "m", "--out", "o"})
                .config()
                .approx());
    }

    @Test
    void mistakesAreOneLine() {
        String[][] bad = {
            {"--model", "m", "--out", "o", "--mode", "trace2"},
            {"--model", "m", "--out", "o", "--dtype", "float16"},
            {"--model", "m", "--out", "o", "--task-memory", "lots"},
            {"--model", "m", "--out", "o", "--n", "0"},
            {"--model", "m", "--out", "o", "--tile"},
            {"--model", "m", "--out", "o", "--bogus"},
            {"--out", "o"},
            {"--model", "m", "--out", "o", "--approx", "nystrom:x"},
            {"--model", "m", "--out", "o", "--approx-holdout", "10"}
        };
        String[] says = {
            "--mode must be one of [full, trace, diagonal]",
            "--dtype must be float32 or float64",
            "--task-memory must be a size like 512m or 4g",
            "--n must be >= 1",
            "--tile needs a value",
            "unknown option or argument '--bogus'",
            "--model and --out are required",
            "--approx 'nystrom:x' is not one of",
            "--approx-holdout applies with --approx"
        };
        for (int i = 0; i < bad.length; i++) {
            String[] a = bad[i];
            UserException e = assertThrows(UserException.class, () -> SparkArgs.parse(a));
            SparkFixtures.assertOneLine(e, says[i]);
        }
    }

    @Test
    void libraryMessagesNameTheSparkOptions() {
        // the request's memory budget is one task's: its messages say --task-memory here, --memory in ntk4j kernel
        assertEquals(
                "--task-memory 1.00 KiB per task is too small",
                SparkArgs.message(new OptionException(KernelOption.MEMORY, " 1.00 KiB per task is too small")));
        assertEquals(
                "--per-class must be >= 1",
                SparkArgs.message(new OptionException(KernelOption.PER_CLASS, " must be >= 1")));
        UserException e = assertThrows(
                UserException.class, () -> SparkArgs.parse(new String[] {"--model", "m", "--out", "o", "--pad", "-1"}));
        SparkFixtures.assertOneLine(e, "--pad must be >= 0 (got -1)");
    }

    @Test
    void taskTakesTheGpuSparkAssignedElseTheCpu() {
        assertEquals(Device.cpu(), ShardTask.deviceFor(Map.of()));
        assertEquals(
                Device.gpu(3),
                ShardTask.deviceFor(Map.of("gpu", new ResourceInformation("gpu", new String[] {"3", "4"}))));
        assertThrows(
                IllegalStateException.class,
                () -> ShardTask.deviceFor(Map.of("gpu", new ResourceInformation("gpu", new String[] {"GPU-1a2b"}))));
    }
}
