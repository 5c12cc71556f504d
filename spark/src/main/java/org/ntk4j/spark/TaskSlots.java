package org.ntk4j.spark;

import java.util.Locale;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerExecutorRemoved;

/**
 * The cluster's task slots when the plan is made. The driver may plan before the executors have registered (they
 * start in the seconds after the SparkContext, 22–28 s on a Spark 3.5.7 standalone cluster), when Spark's default
 * parallelism is still 2: the driver waits, at most {@code spark.scheduler.maxRegisteredResourcesWaitingTime}
 * (Spark's own setting, 30 s by default), for the executors it expects ({@code spark.executor.instances}, the
 * dynamic allocation's initial count, or {@code spark.cores.max / spark.executor.cores}; otherwise until the
 * registered count has not changed for 2 s), and says the slot count it used.
 */
final class TaskSlots {
    /** Measured on a Spark 3.5.7 standalone cluster (one master, two workers): seconds to start an executor. */
    static final String EXECUTOR_START = "22–28 s";

    /** The upper end of {@link #EXECUTOR_START}, added to a dry run's estimate. */
    static final double EXECUTOR_START_SECONDS = 28;

    /** Measured on the same cluster: the first libtorch load of an executor JVM. */
    static final String LIBTORCH_LOAD = "9–16 s";

    /** The upper end of {@link #LIBTORCH_LOAD}, added to a dry run's estimate when the load was not timed. */
    static final double LIBTORCH_LOAD_SECONDS = 16;

    private TaskSlots() {}

    /**
     * What the driver found.
     *
     * @param slots the task slots (tasks that can run at once)
     * @param executors executors registered (0 in local mode, where the driver runs the tasks)
     * @param expected executors expected (null when the configuration does not say)
     * @param waited seconds waited
     * @param line what to print (null in local mode)
     */
    record Found(int slots, int executors, Integer expected, double waited, String line) {}

    /** Registers with the cluster's events: the last executor lost and why (a worker's "Command exited with ..."). */
    static final class Watch extends SparkListener {
        private volatile String lastLoss;

        @Override
        public void onExecutorRemoved(SparkListenerExecutorRemoved e) {
            lastLoss = "executor " + e.executorId() + " lost: " + e.reason();
        }

        /** The last executor loss seen, or null. */
        String lastLoss() {
            return lastLoss;
        }
    }

    /** Waits (bounded) for the expected executors; returns the slots and a line saying what was used. */
    static Found await(SparkContext sc) {
        if (sc.isLocal()) {
            return new Found(sc.defaultParallelism(), 0, null, 0, null);
        }
        SparkConf conf = sc.getConf();
        long limit = conf.getTimeAsMs("spark.scheduler.maxRegisteredResourcesWaitingTime", "30s");
        Integer expected = expected(conf);
        long t0 = System.currentTimeMillis();
        int last = -1;
        long stableSince = t0;
        while (!sc.isStopped()) {
            int n = sc.getExecutorIds().size();
            long now = System.currentTimeMillis();
            if (n != last) {
                last = n;
                stableSince = now;
            }
            boolean done = expected != null ? n >= expected : n > 0 && now - stableSince >= 2000;
            if (done || now - t0 >= limit) {
                break;
            }
            try {
                Thread.sleep(250);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int n = Math.max(0, last);
        double waited = (System.currentTimeMillis() - t0) / 1e3;
        int slots = slots(sc, conf);
        String line;
        if (expected != null && n < expected || n == 0) {
            line = String.format(
                    Locale.ROOT,
                    "task slots: %d (%d%s executors registered after %.0f s, spark.scheduler"
                            + ".maxRegisteredResourcesWaitingTime; the plan assumes %d: --executors K sets the"
                            + " cluster's task slots)",
                    slots,
                    n,
                    expected == null ? "" : " of " + expected + " expected",
                    waited,
                    slots);
        } else {
            line = String.format(
                    Locale.ROOT,
                    "task slots: %d (%d executor%s registered, waited %.1f s)",
                    slots,
                    n,
                    n == 1 ? "" : "s",
                    waited);
        }
        return new Found(slots, n, expected, waited, line);
    }

    /** The executors the configuration asks for, or null when it does not say. */
    static Integer expected(SparkConf conf) {
        if (conf.getBoolean("spark.dynamicAllocation.enabled", false)) {
            int min = conf.getInt("spark.dynamicAllocation.minExecutors", 0);
            int initial = conf.getInt("spark.dynamicAllocation.initialExecutors", min);
            int n = Math.max(initial, conf.getInt("spark.executor.instances", 0));
            return n > 0 ? n : null;
        }
        if (conf.contains("spark.executor.instances")) {
            return conf.getInt("spark.executor.instances", 0);
        }
        if (conf.contains("spark.cores.max") && conf.contains("spark.executor.cores")) {
            return Math.max(1, conf.getInt("spark.cores.max", 1) / conf.getInt("spark.executor.cores", 1));
        }
        return null;
    }

    /**
     * The tasks that can run at once: the registered executors' cores over {@code spark.task.cpus} (and their GPUs
     * over the task's), as Spark's scheduler counts them; Spark's default parallelism over {@code spark.task.cpus}
     * if that count is unavailable.
     */
    static int slots(SparkContext sc, SparkConf conf) {
        try {
            // private[spark] in Scala, public in the bytecode: the count barrier stages use
            int n = sc.maxNumConcurrentTasks(sc.resourceProfileManager().defaultResourceProfile());
            if (n > 0) {
                return n;
            }
        } catch (LinkageError e) {
            // another Spark build: fall back to the default parallelism
        }
        return Math.max(1, sc.defaultParallelism() / Math.max(1, conf.getInt("spark.task.cpus", 1)));
    }
}
