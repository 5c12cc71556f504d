package org.ntk4j.job;

import java.nio.file.Path;
import org.ntk4j.report.ProgressBar;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;

/** Console output of a training run on stderr: a progress bar per epoch, a line per epoch, the resume notice. */
public final class ConsoleListener implements TrainListener {
    private final Path dir;
    private ProgressBar bar;
    private int barEpoch = -1;
    private int lossTenth = -1;
    private long lossNanos;

    /** {@code dir}: the run folder named in the resume notice. */
    public ConsoleListener(Path dir) {
        this.dir = dir;
    }

    @Override
    public void onStart(TrainProgress p) {
        if (p.resumed()) {
            System.err.printf(
                    "resuming %s at epoch %d, step %d%n", dir, p.state().epoch() + 1, p.step());
        }
    }

    @Override
    public void onStep(TrainProgress p) {
        if (bar == null || barEpoch != p.epoch()) {
            bar = new ProgressBar("epoch " + (p.epoch() + 1) + "/" + p.spec().epochs(), p.stepsPerEpoch());
            barEpoch = p.epoch();
            lossTenth = -1;
        }
        // the running loss is read from the engine only as often as a bar can show it: at each tenth of the
        // epoch (a bar that is not on a terminal prints a line there) and at most 5 times a second
        long now = System.nanoTime();
        int tenth = 10 * p.stepInEpoch() / p.stepsPerEpoch();
        if (tenth != lossTenth || now - lossNanos >= 200_000_000L) {
            bar.suffix(String.format("loss %.4f", p.runningLoss()));
            lossTenth = tenth;
            lossNanos = now;
        }
        bar.update(p.stepInEpoch());
    }

    @Override
    public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
        bar = null;
        if (e.classify()) {
            System.err.printf(
                    "epoch %d: train loss %.4f acc %.4f%s (%.1fs)%n",
                    e.epoch(),
                    e.trainLoss(),
                    e.trainAccuracy(),
                    e.hasTest() ? String.format(", test loss %.4f acc %.4f", e.testLoss(), e.testAccuracy()) : "",
                    e.seconds());
        } else {
            System.err.printf(
                    "epoch %d: train loss %.6g%s (%.1fs)%n",
                    e.epoch(),
                    e.trainLoss(),
                    e.hasTest() ? String.format(", test loss %.6g", e.testLoss()) : "",
                    e.seconds());
        }
    }
}
