package org.ntk4j.job;

import com.google.gson.JsonObject;
import java.util.List;
import org.ntk4j.report.Provenance;
import org.ntk4j.report.RunFolder;
import org.ntk4j.report.RunReport;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainLoop;
import org.ntk4j.train.TrainProgress;

/**
 * Writes a run's model.json and train.json at a fresh start, and to its metrics.jsonl a {@code "kind": "session"}
 * record at every start or resume ({@link Provenance}: device, DJL and PyTorch versions, ...), the training loss
 * along the epoch ({@code "kind": "step"}: the mean loss of the steps since the last record, one record every
 * {@code max(1, steps per epoch / 100)} steps and at the epoch's end, so that the running loss, kept in the engine,
 * is read at most about 100 times an epoch) and one {@code "kind": "epoch"} record per epoch.
 * On a resumed run that has no epoch left, supplies the last logged epoch as the run's result.
 */
public final class MetricsLogListener implements TrainListener {
    private final RunFolder run;
    private double lossSumBefore;
    private long seenBefore;

    public MetricsLogListener(RunFolder run) {
        this.run = run;
    }

    @Override
    public void onStart(TrainProgress p) {
        if (p.resumed()) {
            p.result(lastLogged());
        } else {
            run.writeJson("model.json", p.net().spec());
            run.writeJson("train.json", p.spec());
        }
        run.log(Provenance.record(p.net().manager().getDevice(), p.resumed()));
        lossSumBefore = p.state().lossSum();
        seenBefore = p.state().seen();
    }

    @Override
    public void onStep(TrainProgress p) {
        int every = Math.max(1, p.stepsPerEpoch() / 100);
        if (p.stepInEpoch() % every != 0 && !p.endOfEpoch()) {
            return;
        }
        TrainLoop.State st = p.state();
        long n = st.seen() - seenBefore;
        if (n > 0) {
            JsonObject rec = new JsonObject();
            rec.addProperty("kind", RunReport.STEP);
            rec.addProperty("step", p.step());
            rec.addProperty("epoch", p.epoch() + 1);
            rec.addProperty("loss", (st.lossSum() - lossSumBefore) / n);
            run.log(rec);
        }
        lossSumBefore = st.lossSum();
        seenBefore = st.seen();
    }

    @Override
    public void onEpoch(TrainProgress p, TrainLoop.EpochRecord e) {
        lossSumBefore = 0; // the loop has reset its sums for the next epoch
        seenBefore = 0;
        JsonObject rec = new JsonObject();
        rec.addProperty("kind", "epoch");
        rec.addProperty("epoch", e.epoch());
        rec.addProperty("step", e.step());
        rec.addProperty("lr", e.lr());
        if (e.fullBatch()) {
            rec.addProperty("t", e.t());
        }
        rec.addProperty("train_loss", e.trainLoss());
        if (e.classify()) {
            rec.addProperty("train_accuracy", e.trainAccuracy());
        }
        if (e.hasTest()) {
            rec.addProperty("test_loss", e.testLoss());
            if (e.classify()) {
                rec.addProperty("test_accuracy", e.testAccuracy());
            }
        }
        rec.addProperty("seconds", e.seconds());
        run.log(rec);
    }

    private TrainLoop.Result lastLogged() {
        List<JsonObject> epochs = run.records("epoch");
        if (epochs.isEmpty()) {
            return null;
        }
        JsonObject r = epochs.get(epochs.size() - 1);
        double tl = r.has("test_loss") ? r.get("test_loss").getAsDouble() : Double.NaN;
        double ta = r.has("test_accuracy") ? r.get("test_accuracy").getAsDouble() : Double.NaN;
        double tra = r.has("train_accuracy") ? r.get("train_accuracy").getAsDouble() : Double.NaN;
        return new TrainLoop.Result(
                r.get("train_loss").getAsDouble(),
                tra,
                tl,
                ta,
                r.get("epoch").getAsInt(),
                r.get("step").getAsLong(),
                Double.NaN);
    }
}
