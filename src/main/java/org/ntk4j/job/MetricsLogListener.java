package org.ntk4j.job;

import com.google.gson.JsonObject;
import java.util.List;
import org.ntk4j.report.RunFolder;
import org.ntk4j.train.TrainListener;
import org.ntk4j.train.TrainProgress;
import org.ntk4j.train.Trainer;

/**
 * Writes a run's model.json and train.json at a fresh start and one {@code "kind": "epoch"} record
 * per epoch to its metrics.jsonl. On a resumed run that has no epoch left, supplies the last logged
 * epoch as the run's result.
 */
public final class MetricsLogListener implements TrainListener {
    private final RunFolder run;

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
    }

    @Override
    public void onEpoch(TrainProgress p, Trainer.EpochRecord e) {
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

    private Trainer.Result lastLogged() {
        List<JsonObject> epochs = run.records("epoch");
        if (epochs.isEmpty()) {
            return null;
        }
        JsonObject r = epochs.get(epochs.size() - 1);
        double tl = r.has("test_loss") ? r.get("test_loss").getAsDouble() : Double.NaN;
        double ta = r.has("test_accuracy") ? r.get("test_accuracy").getAsDouble() : Double.NaN;
        double tra = r.has("train_accuracy") ? r.get("train_accuracy").getAsDouble() : Double.NaN;
        return new Trainer.Result(
                r.get("train_loss").getAsDouble(),
                tra,
                tl,
                ta,
                r.get("epoch").getAsInt(),
                r.get("step").getAsLong(),
                Double.NaN);
    }
}
