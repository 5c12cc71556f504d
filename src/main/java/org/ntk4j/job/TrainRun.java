package org.ntk4j.job;

import ai.djl.ndarray.NDManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.ntk4j.UserException;
import org.ntk4j.data.LabelledSet;
import org.ntk4j.model.Network;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.TrainLoop;

/**
 * Training into a run folder: the {@link TrainLoop} with the listeners that write the folder ({@link #trainer}), and
 * the folder's lifecycle as {@code ntk4j train} and {@code ntk4j quickstart} run it ({@link #start}, {@link #resume}):
 * one run per folder (a lock taken before anything is written), args.json written first with the thread count the
 * run starts with, and a fresh run that fails before its first checkpoint or metrics record leaves no files behind.
 */
public final class TrainRun {
    private TrainRun() {}

    /**
     * A trainer of {@code net} on {@code train} (evaluated on {@code test}, may be null) writing {@code run}: progress
     * bars and a line per epoch on the console ({@link ConsoleListener}, off with {@link TrainLoop#quiet}), model.json,
     * train.json and one metrics.jsonl record per epoch ({@link MetricsLogListener}), and checkpoints with
     * weights.npz at the end ({@link CheckpointListener}), from which {@code fit(true)} resumes.
     */
    public static TrainLoop trainer(Network net, TrainSpec spec, LabelledSet train, LabelledSet test, RunFolder run) {
        return new TrainLoop(net, spec, train, test)
                .console(new ConsoleListener(run.dir()))
                .addListener(new MetricsLogListener(run))
                .checkpoints(new CheckpointListener(run));
    }

    /** Where {@code ntk4j train} puts a run without {@code --out}: runs/MODEL-DATASET. */
    public static Path defaultDir(TrainJobConfig args) {
        return Path.of("runs", args.model().name() + "-" + args.dataset());
    }

    /**
     * Starts a fresh run of {@code args} in {@code dir}: refuses a folder that holds anything unless {@code replace}
     * (then the earlier run's files are deleted), locks it, writes args.json (with {@code threads}, the thread count
     * to record for a resume; null records none) and trains on a manager from {@code manager}, made once the folder
     * is locked.
     */
    public static TrainJob.Outcome start(
            TrainJobConfig args,
            Path dir,
            boolean replace,
            Integer threads,
            Path dataDir,
            Supplier<NDManager> manager,
            boolean quiet) {
        if (RunFolder.hasContent(dir) && !replace) {
            throw new UserException(
                    dir + " is not empty" + (Files.exists(dir.resolve("args.json")) ? " (it holds a run)" : "")
                            + "; use --resume " + dir + " to continue it, --force to replace it, or another --out");
        }
        try (RunFolder run = new RunFolder(dir)) {
            run.lock(); // before anything is written: a second run on this folder stops here
            if (replace) {
                run.clearRunFiles();
            }
            run.writeJson("args.json", args.withThreads(threads));
            try (NDManager m = manager.get()) {
                return TrainJob.run(args, run, dataDir, m, false, quiet);
            } catch (RuntimeException e) {
                if (!Files.exists(dir.resolve("checkpoint")) && !Files.exists(dir.resolve("metrics.jsonl"))) {
                    run.clearRunFiles(); // failed before training started: leave no half-made run behind
                }
                throw e;
            }
        }
    }

    /**
     * Continues the run in {@code dir} from its last checkpoint (or trains it from its start when it stopped before its
     * first checkpoint) with {@code args}: its args.json, with at most the
     * epochs extended (see {@link #extensionAllowed}) and the checkpoint interval changed; {@code epochsBefore} is the
     * number of epochs it was started with. An extension is written to args.json (with the thread count the run was
     * started with, or {@code threads} where it recorded none).
     */
    public static TrainJob.Outcome resume(
            Path dir,
            TrainJobConfig args,
            int epochsBefore,
            Integer threads,
            Path dataDir,
            Supplier<NDManager> manager,
            boolean quiet) {
        if (args.train().epochs() != epochsBefore) {
            extensionAllowed(args.train(), epochsBefore);
        }
        try (RunFolder run = new RunFolder(dir)) {
            run.lock();
            // a run stopped before its first checkpoint (they come every 30 s by default) saved nothing to continue
            // from: it is trained again from its start, which gives the same run (seeded), so nothing is lost
            boolean fromStart = !CheckpointListener.exists(dir);
            if (fromStart) {
                System.err.println("ntk4j: " + dir + " has no checkpoint yet (the run stopped before its first);"
                        + " training it from the start with its arguments");
                run.truncateRecords(0); // the stopped run's step records, if any
            }
            ResumeGuard guard = new ResumeGuard(dir); // a failed resume leaves args.json as it found it
            if (args.train().epochs() != epochsBefore) {
                run.writeJson("args.json", args.withThreads(args.threads() != null ? args.threads() : threads));
                System.err.println("ntk4j: extending the run from " + epochsBefore + " to "
                        + args.train().epochs() + " epochs");
            }
            try (NDManager m = manager.get()) {
                return TrainJob.run(args, run, dataDir, m, !fromStart, quiet);
            } catch (RuntimeException e) {
                guard.restoreIfUnchanged();
                throw e;
            }
        }
    }

    /**
     * Extending a run (--resume with more --epochs): fine for a constant or step schedule, whose
     * learning rate at a finished epoch does not depend on the total; refused for cosine schedules,
     * which are defined over the whole run (the lr would jump back up from 0). Fewer epochs than
     * the run was started with are refused too.
     */
    public static void extensionAllowed(TrainSpec t, int before) {
        if (t.epochs() < before) {
            throw new UserException("--epochs " + t.epochs() + ": the run was started with " + before
                    + " epochs; a resumed run" + " can only be extended");
        }
        if (t.schedule().json().contains("cosine")) {
            throw new UserException(
                    "--epochs " + t.epochs() + ": the " + t.schedule() + " schedule spans the run's " + before
                            + " epochs, so extending it would change the learning rate of finished epochs; start a new run (only"
                            + " constant and step schedules can be extended)");
        }
    }
}
