package org.ntk4j.train;

import ai.djl.ndarray.NDList;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import org.ntk4j.UserException;
import org.ntk4j.report.Files2;
import org.ntk4j.report.RunFolder;
import org.ntk4j.spec.Specs;

/**
 * Checkpoints of a run folder: weights, optimizer state and {@link Trainer.State} in checkpoint/,
 * replaced atomically, every {@code checkpointEvery} steps, at the end, and at least every
 * {@link #CHECKPOINT_SECONDS} at an epoch end; writes weights.npz when training ends, and restores a
 * run (truncating metrics.jsonl to the records the checkpoint had seen). The trainer runs it after
 * every other listener.
 */
public final class CheckpointListener implements TrainListener {
    /** Longest wall time between epoch-end checkpoints. */
    static final long CHECKPOINT_SECONDS = 30;
    private final RunFolder run;
    private long lastCheckpointStep;
    private long lastCheckpointNanos = System.nanoTime();

    public CheckpointListener(RunFolder run) {
        this.run = run;
    }

    @Override
    public void onStart(TrainProgress p) {
        lastCheckpointStep = p.step();
        lastCheckpointNanos = System.nanoTime();
    }

    @Override
    public void onStep(TrainProgress p) {
        if (p.spec().checkpointEvery > 0 && p.step() % p.spec().checkpointEvery == 0 && !p.endOfEpoch()) {
            p.state().seconds = p.seconds();
            save(p);
        }
    }

    @Override
    public void onEpoch(TrainProgress p, Trainer.EpochRecord e) {
        // at the end, every checkpointEvery steps, and at least every CHECKPOINT_SECONDS: full-batch
        // runs have one-step epochs by the thousand; a resumed run replays the steps since the last
        // checkpoint deterministically, so spacing them loses time, never results
        boolean due = e.epoch() == p.spec().epochs
                || p.spec().checkpointEvery > 0 && p.step() - lastCheckpointStep >= p.spec().checkpointEvery
                || System.nanoTime() - lastCheckpointNanos >= CHECKPOINT_SECONDS * 1_000_000_000L;
        if (due) {
            save(p);
        }
    }

    @Override
    public void onEnd(TrainProgress p, Trainer.Result r) {
        try {
            p.net().saveParameters(run.file("weights.npz"));
        } catch (IOException e) {
            throw new UserException(run.file("weights.npz") + ": cannot write (" + e.getMessage() + ")");
        }
    }

    private void save(TrainProgress p) {
        checkpoint(p.optimizer(), p.state(), p);
        lastCheckpointStep = p.step();
        lastCheckpointNanos = System.nanoTime();
    }

    /** Writes weights, optimizer state and the loop state into checkpoint/, replacing the old one atomically. */
    private void checkpoint(Optimizer opt, Trainer.State st, TrainProgress p) {
        try {
            Path tmp = run.file("checkpoint.tmp");
            deleteTree(tmp);
            Files.createDirectories(tmp);
            p.net().saveParameters(tmp.resolve("weights.npz"));
            NDList os = opt.state();
            Files2.writeAtomically(tmp.resolve("optimizer.npz"), out -> os.encode(out, NDList.Encoding.NPZ));
            st.records = run.recordCount();
            Files2.writeString(tmp.resolve("state.json"), Specs.toJson(st));
            Path cur = run.file("checkpoint");
            Path old = run.file("checkpoint.old");
            deleteTree(old);
            if (Files.exists(cur)) {
                Files.move(cur, old, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(tmp, cur, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(old);
        } catch (IOException e) {
            throw new UserException(run.dir() + ": cannot write checkpoint (" + e.getMessage() + ")");
        }
    }

    /** Loads the last checkpoint into the network, optimizer and state of {@code p}. */
    void restore(TrainProgress p) {
        Path cur = run.file("checkpoint");
        if (!Files.isDirectory(cur)) {
            // a crash between the two renames leaves only checkpoint.old
            if (Files.isDirectory(run.file("checkpoint.old"))) {
                cur = run.file("checkpoint.old");
            } else {
                throw new UserException(run.dir() + ": no checkpoint to resume from (expected " + cur + ")");
            }
        }
        Trainer.State st = Specs.GSON.fromJson(readString(cur.resolve("state.json")), Trainer.State.class);
        p.net().loadParameters(cur.resolve("weights.npz"));
        try (InputStream is = new BufferedInputStream(Files.newInputStream(cur.resolve("optimizer.npz")))) {
            NDList saved = NDList.decode(p.net().manager(), is);
            p.optimizer().restore(saved, st.step);
            saved.close();
        } catch (IOException | IllegalArgumentException e) {
            throw new UserException(cur.resolve("optimizer.npz") + ": cannot read (" + e.getMessage() + ")");
        }
        run.truncateRecords(st.records);
        p.state().copyFrom(st);
    }

    private static String readString(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UserException(p + ": cannot read (" + e.getMessage() + ")");
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.exists(p)) {
            try (var s = Files.walk(p)) {
                for (Path q : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(q);
                }
            }
        }
    }
}
