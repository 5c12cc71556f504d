package org.ntk4j.spark;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.SparkListenerTaskStart;
import org.apache.spark.sql.SparkSession;

/**
 * One Spark session in local mode for all the tests of this JVM: {@code local[2,4]}, two task slots and
 * four attempts per task (spark.task.maxFailures, so that the failure tests see retries), no UI; stopped
 * when the JVM exits. Counts task starts, ends and failures.
 */
final class LocalSpark {
    private static SparkSession session;
    static final AtomicInteger STARTED = new AtomicInteger();
    static final AtomicInteger ENDED = new AtomicInteger();
    static final AtomicInteger FAILED = new AtomicInteger();
    /** The reasons of the failed task attempts (TaskEndReason.toErrorString), in order. */
    static final java.util.List<String> FAILURES = new java.util.concurrent.CopyOnWriteArrayList<>();

    private LocalSpark() {}

    static synchronized SparkSession get() {
        if (session == null) {
            session = SparkSession.builder()
                    .master("local[2,4]")
                    .appName("ntk4j-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "2")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .getOrCreate();
            session.sparkContext().addSparkListener(new SparkListener() {
                @Override
                public void onTaskStart(SparkListenerTaskStart e) {
                    STARTED.incrementAndGet();
                }

                @Override
                public void onTaskEnd(SparkListenerTaskEnd e) {
                    if (!e.taskInfo().successful()) {
                        FAILED.incrementAndGet();
                        FAILURES.add(e.reason().toString());
                    }
                    ENDED.incrementAndGet();
                }
            });
            Runtime.getRuntime().addShutdownHook(new Thread(() -> session.stop()));
        }
        return session;
    }

    /** Waits until every task started has ended (tasks of an aborted job may still be running), at most 60 s. */
    static void awaitIdle() throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < end) {
            session.sparkContext().listenerBus().waitUntilEmpty(10_000);
            if (STARTED.get() == ENDED.get()
                    && session.sparkContext().statusTracker().getActiveStageIds().length == 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("Spark tasks still running after 60 s");
    }
}
