package org.ntk4j.job;

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
import org.ntk4j.train.Checkpoints;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;
import org.ntk4j.train.UpdateRule;

/**
 * Checkpoints of a run folder: weights, optimizer state and {@link TrainLoop.State} in checkpoint/,
 * replaced atomically, every {@code checkpointEvery} steps, at the end, and at least every
 * {@link #CHECKPOINT_SECONDS} at an epoch end, keeping the last two with checksums; writes weights.npz when training ends, and restores a
 * run (truncating metrics.jsonl to the records the checkpoint had seen). The trainer runs it after
 * every other listener.
 */
public final class CheckpointListener implements Checkpoints {
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
        if (p.spec().checkpointEvery() > 0 && p.step() % p.spec().checkpointEvery() == 0 && !p.endOfEpoch()) {
            p.state().seconds(p.seconds());
            save(p);
        }
    }

    @Override
    public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
        // at the end, every checkpointEvery steps, and at least every CHECKPOINT_SECONDS: full-batch
        // runs have one-step epochs by the thousand; a resumed run replays the steps since the last
        // checkpoint deterministically, so spacing them loses time, never results
        boolean due = e.epoch() == p.spec().epochs()
                || p.spec().checkpointEvery() > 0
                        && p.step() - lastCheckpointStep >= p.spec().checkpointEvery()
                || System.nanoTime() - lastCheckpointNanos >= CHECKPOINT_SECONDS * 1_000_000_000L;
        if (due) {
            save(p);
        }
    }

    @Override
    public void onEnd(TrainProgress p, TrainLoop.Result r) {
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

    /** The files of a checkpoint, each listed with its SHA-256 in {@value #CHECKSUMS} (written last). */
    static final java.util.List<String> FILES = java.util.List.of("weights.npz", "optimizer.npz", "state.json");

    static final String CHECKSUMS = "checksums.json";

    /**
     * Writes weights, optimizer state, the loop state and their checksums into a temporary folder
     * ({@link org.ntk4j.files.TempFiles}), then rotates: checkpoint/ becomes checkpoint.prev/ and the temporary becomes checkpoint/ (atomic
     * renames). The last two checkpoints are kept: a damaged newest one falls back to the older.
     */
    private void checkpoint(UpdateRule opt, TrainLoop.State st, TrainProgress p) {
        Path tmp = org.ntk4j.files.TempFiles.directory(run.file("checkpoint"));
        try {
            deleteTree(run.file("checkpoint.tmp")); // left by versions before the temporaries' naming rule
            p.net().saveParameters(tmp.resolve("weights.npz"));
            NDList os = opt.state();
            java.util.List<String> names = new java.util.ArrayList<>();
            os.forEach(a -> names.add(a.getName()));
            org.ntk4j.io.Weights.write(tmp.resolve("optimizer.npz"), names, os);
            st.records(run.recordCount());
            Files2.writeString(tmp.resolve("state.json"), Specs.toJson(st));
            com.google.gson.JsonObject sums = new com.google.gson.JsonObject();
            for (String f : FILES) {
                sums.addProperty(f, sha256(tmp.resolve(f)));
            }
            Files2.writeString(tmp.resolve(CHECKSUMS), sums + "\n");
            Path cur = run.file("checkpoint");
            Path prev = run.file("checkpoint.prev");
            if (Files.exists(cur)) {
                deleteTree(prev);
                Files.move(cur, prev, StandardCopyOption.ATOMIC_MOVE);
            }
            Files.move(tmp, cur, StandardCopyOption.ATOMIC_MOVE);
            deleteTree(run.file("checkpoint.old")); // left by versions that kept one checkpoint
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(run.dir() + ": cannot write checkpoint (" + e.getMessage() + ")", e);
        } finally {
            org.ntk4j.files.TempFiles.delete(tmp);
        }
    }

    /** Whether the run in {@code dir} has a checkpoint folder to resume from (intact or not). */
    static boolean exists(Path dir) {
        for (String n : CHECKPOINTS) {
            if (Files.isDirectory(dir.resolve(n))) {
                return true;
            }
        }
        return false;
    }

    /** The checkpoint folders, newest first (checkpoint.old: versions that kept one). */
    private static final String[] CHECKPOINTS = {"checkpoint", "checkpoint.prev", "checkpoint.old"};

    /**
     * Loads the newest intact checkpoint into the network, optimizer and state of {@code p}:
     * checkpoint/, else (damaged: a checksum mismatch, a missing file, a state.json that does not
     * parse) checkpoint.prev/ with a message saying so.
     */
    @Override
    public void restore(TrainProgress p) {
        java.util.List<Path> candidates = new java.util.ArrayList<>();
        for (String n : CHECKPOINTS) {
            if (Files.isDirectory(run.file(n))) {
                candidates.add(run.file(n));
            }
        }
        if (candidates.isEmpty()) {
            throw new UserException(
                    run.dir() + ": no checkpoint to resume from (expected " + run.file("checkpoint") + ")");
        }
        java.util.List<String> problems = new java.util.ArrayList<>();
        for (Path cur : candidates) {
            TrainLoop.State st;
            try {
                st = verify(cur);
                fits(st, p, cur);
                // without checksums (older runs, or checksums.json lost), a damaged file shows only when it is read
                p.net().loadParameters(cur.resolve("weights.npz"));
                try (InputStream is = new BufferedInputStream(Files.newInputStream(cur.resolve("optimizer.npz")))) {
                    NDList saved = NDList.decode(p.net().manager(), is);
                    p.optimizer().restore(saved, st.step());
                    saved.close();
                } catch (IOException | RuntimeException e) {
                    throw new UserException(cur.getFileName() + "/optimizer.npz is damaged ("
                            + org.ntk4j.files.IoMessages.words(e.getMessage()) + ")");
                }
            } catch (UserException e) {
                problems.add(e.getMessage());
                continue;
            }
            if (!problems.isEmpty()) {
                System.err.println("ntk4j: warning: " + String.join("; ", problems) + "; resuming from the older "
                        + cur.getFileName() + "/ (step " + st.step() + ")");
            }
            run.truncateRecords(st.records());
            p.state().copyFrom(st);
            return;
        }
        throw new UserException("cannot resume " + run.dir() + ": " + String.join("; ", problems));
    }

    /** The state of checkpoint folder {@code cur} after checking its files against their checksums. */
    static TrainLoop.State verify(Path cur) {
        Path sums = cur.resolve(CHECKSUMS);
        if (Files.isRegularFile(sums)) {
            com.google.gson.JsonObject o;
            try {
                o = com.google.gson.JsonParser.parseString(Files.readString(sums))
                        .getAsJsonObject();
            } catch (IOException | RuntimeException e) {
                throw new UserException(sums + " is damaged (" + e.getMessage() + ")");
            }
            for (String f : FILES) {
                Path q = cur.resolve(f);
                if (!Files.isRegularFile(q)) {
                    throw new UserException(cur.getFileName() + "/" + f + " is missing");
                }
                String want = o.has(f) ? o.get(f).getAsString() : "";
                try {
                    if (!want.equals(sha256(q))) {
                        throw new UserException(cur.getFileName() + "/" + f + " is damaged (checksum mismatch)");
                    }
                } catch (IOException e) {
                    throw new UserException(q + ": cannot read (" + e.getMessage() + ")");
                }
            }
        }
        for (String f : FILES) {
            if (!Files.isRegularFile(cur.resolve(f))) {
                throw new UserException(cur.getFileName() + "/" + f + " is missing");
            }
        }
        try {
            TrainLoop.State st = Specs.GSON.fromJson(readString(cur.resolve("state.json")), TrainLoop.State.class);
            if (st == null || !st.valid()) {
                throw new UserException(cur.getFileName() + "/state.json is damaged (no valid state)");
            }
            return st;
        } catch (com.google.gson.JsonParseException | NumberFormatException | IllegalStateException e) {
            throw new UserException(cur.getFileName() + "/state.json is damaged (" + firstLine(e.getMessage()) + ")");
        }
    }

    /**
     * Refuses a state that does not fit the run (an edited or damaged state.json that still parses): the step must be
     * epoch × steps per epoch + step in the epoch, inside the run's epochs.
     */
    static void fits(TrainLoop.State st, TrainProgress p, Path cur) {
        long spe = p.stepsPerEpoch();
        int epochs = p.spec().epochs();
        if (st.epoch() > epochs
                || st.stepInEpoch() < 0
                || st.stepInEpoch() >= spe
                || st.epoch() == epochs && st.stepInEpoch() != 0
                || st.step() != (long) st.epoch() * spe + st.stepInEpoch()) {
            throw new UserException(
                    cur.getFileName() + "/state.json does not fit this run (epoch " + st.epoch() + ", step "
                            + st.step() + ", step " + st.stepInEpoch() + " of the epoch; the run has " + epochs
                            + " epochs of " + spe
                            + " steps)");
        }
    }

    private static String firstLine(String s) {
        return s == null ? "" : s.lines().findFirst().orElse("");
    }

    static String sha256(Path f) throws IOException {
        try (InputStream in = new BufferedInputStream(Files.newInputStream(f))) {
            java.security.MessageDigest md = java.security.MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
            return java.util.HexFormat.of().formatHex(md.digest());
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
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
