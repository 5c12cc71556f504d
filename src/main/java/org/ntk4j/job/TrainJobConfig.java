package org.ntk4j.job;

import com.google.gson.JsonParseException;
import com.google.gson.TypeAdapter;
import com.google.gson.annotations.JsonAdapter;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonWriter;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import org.ntk4j.UserException;
import org.ntk4j.approx.ApproxSpec;
import org.ntk4j.spec.ModelSpec;
import org.ntk4j.spec.TrainSpec;
import org.ntk4j.train.Schedule;

/**
 * What a training run is started with; saved as the run folder's args.json, so a resume needs nothing else. Built
 * with {@link #builder}; in args.json the probes, their schedule and their points are written as the strings the
 * command line takes ({@code "probe": "ntk,nc,nfa"}, {@code "probeEvery": "epochs"}, {@code "probePoints":
 * "train"}).
 *
 * @param model the network (outputs already overridden where asked)
 * @param train optimizer, schedule, epochs, loss and seed
 * @param dataset a dataset name ({@code org.ntk4j.data.Datasets})
 * @param perClass train on this many samples per class (balanced, seeded); null = all
 * @param testPerClass evaluate on this many test samples per class; null = all
 * @param probe the probes, in the order they run ({@link ProbeKind}); null or empty = none
 * @param probeSet probe-set size per class
 * @param probeEvery when probes run ({@link Schedule}: epochs, every:K, log:N:MAX); null = epochs
 * @param classes train on these classes only, relabelled 0..k-1; null = all
 * @param pad zero-pad images by this many pixels per side; null = none
 * @param threads the PyTorch intra-op thread count the run started with (a resume reuses it: results
 *     agree bit for bit only at the same count); null = not recorded
 * @param probePoints where the ntk probe takes its points ({@link ProbePoints}); null (args.json of runs started
 *     before the option) = the earlier behaviour, test images for a classification set ({@link #probePointsOrDefault})
 * @param layerCkaMax the ntk probe computes Eq. 5 layer CKA up to this N·O (0 = never); null = the probe's default
 * @param approx the kernel the ntk probe measures: {@code pntk} (written as that string), or null for the traced NTK
 */
public record TrainJobConfig(
        ModelSpec model,
        TrainSpec train,
        String dataset,
        Integer perClass,
        Integer testPerClass,
        @JsonAdapter(ProbesJson.class) List<ProbeKind> probe,
        int probeSet,
        @JsonAdapter(ScheduleJson.class) Schedule probeEvery,
        int[] classes,
        Integer pad,
        Integer threads,
        @JsonAdapter(ProbePointsJson.class) ProbePoints probePoints,
        Integer layerCkaMax,
        @JsonAdapter(ApproxJson.class) ApproxSpec approx) {

    /** Where the ntk probe takes its points: training or test images ({@code --probe-points}). */
    public enum ProbePoints {
        TRAIN,
        TEST;

        /** {@code train} or {@code test} (any case). */
        public static ProbePoints parse(String s) {
            for (ProbePoints p : values()) {
                if (p.toString().equals(s.trim().toLowerCase(Locale.ROOT))) {
                    return p;
                }
            }
            throw new UserException("--probe-points must be one of [train, test] (got " + s + ")");
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The probe list, or none. */
    public List<ProbeKind> probes() {
        return probe == null ? List.of() : probe;
    }

    /** {@link #probePoints}, or {@code test} where it is not recorded (the behaviour before the option). */
    public ProbePoints probePointsOrDefault() {
        return probePoints == null ? ProbePoints.TEST : probePoints;
    }

    /** The probes' schedule, {@code epochs} where none is recorded. */
    @Override
    public Schedule probeEvery() {
        return probeEvery == null ? Schedule.parse("epochs") : probeEvery;
    }

    /** A run of {@code model} on {@code dataset} with {@code train}; the rest as {@code ntk4j train}'s defaults. */
    public static Builder builder(ModelSpec model, TrainSpec train, String dataset) {
        return new Builder(model, train, dataset);
    }

    /** The defaults of {@code ntk4j train}: probe set 10 per class, probes (none) at each epoch end. */
    public static TrainJobConfig of(ModelSpec model, TrainSpec train, String dataset) {
        return builder(model, train, dataset).build();
    }

    public Builder toBuilder() {
        Builder b = new Builder(model, train, dataset);
        b.perClass = perClass;
        b.testPerClass = testPerClass;
        b.probe = probe;
        b.probeSet = probeSet;
        b.probeEvery = probeEvery;
        b.classes = classes;
        b.pad = pad;
        b.threads = threads;
        b.probePoints = probePoints;
        b.layerCkaMax = layerCkaMax;
        b.approx = approx;
        return b;
    }

    public TrainJobConfig withTrain(TrainSpec t) {
        return toBuilder().train(t).build();
    }

    public TrainJobConfig withThreads(Integer n) {
        return toBuilder().threads(n).build();
    }

    /** Builds a {@link TrainJobConfig}; every setting but the model, training spec and dataset is optional. */
    public static final class Builder {
        private ModelSpec model;
        private TrainSpec train;
        private final String dataset;
        private Integer perClass;
        private Integer testPerClass;
        private List<ProbeKind> probe;
        private int probeSet = 10;
        private Schedule probeEvery = Schedule.parse("epochs");
        private int[] classes;
        private Integer pad;
        private Integer threads;
        private ProbePoints probePoints;
        private Integer layerCkaMax;
        private ApproxSpec approx;

        private Builder(ModelSpec model, TrainSpec train, String dataset) {
            this.model = model;
            this.train = train;
            this.dataset = dataset;
        }

        public Builder model(ModelSpec m) {
            model = m;
            return this;
        }

        public Builder train(TrainSpec t) {
            train = t;
            return this;
        }

        /** Train on this many samples per class (balanced, seeded); null = all. */
        public Builder perClass(Integer n) {
            perClass = n;
            return this;
        }

        /** Evaluate on this many test samples per class; null = all. */
        public Builder testPerClass(Integer n) {
            testPerClass = n;
            return this;
        }

        /** The probes, in the order they run (null or empty: none). */
        public Builder probes(List<ProbeKind> kinds) {
            probe = kinds == null || kinds.isEmpty() ? null : List.copyOf(kinds);
            return this;
        }

        public Builder probes(ProbeKind... kinds) {
            return probes(List.of(kinds));
        }

        /** Probe-set size per class (default 10). */
        public Builder probeSet(int perClass) {
            probeSet = perClass;
            return this;
        }

        /** When the probes run (default: at initialisation and every epoch end). */
        public Builder probeEvery(Schedule s) {
            probeEvery = s;
            return this;
        }

        /** Train on these classes only, relabelled 0..k-1; null = all. */
        public Builder classes(int[] c) {
            classes = c;
            return this;
        }

        /** Zero-pad images by this many pixels per side; null = none. */
        public Builder pad(Integer p) {
            pad = p;
            return this;
        }

        /** The intra-op thread count the run starts with (recorded for a resume). */
        public Builder threads(Integer n) {
            threads = n;
            return this;
        }

        public Builder probePoints(ProbePoints p) {
            probePoints = p;
            return this;
        }

        /** The ntk probe's largest N·O for Eq. 5 layer CKA (null: the probe's default). */
        public Builder layerCkaMax(Integer n) {
            layerCkaMax = n;
            return this;
        }

        /** The ntk probe's kernel: {@code pntk}, or null (the default) for the traced NTK. */
        public Builder approx(ApproxSpec a) {
            approx = a;
            return this;
        }

        public TrainJobConfig build() {
            return new TrainJobConfig(
                    model,
                    train,
                    dataset,
                    perClass,
                    testPerClass,
                    probe,
                    probeSet,
                    probeEvery,
                    classes,
                    pad,
                    threads,
                    probePoints,
                    layerCkaMax,
                    approx);
        }
    }

    /** args.json's {@code "probe": "ntk,nc,nfa"}. */
    static final class ProbesJson extends TypeAdapter<List<ProbeKind>> {
        @Override
        public void write(JsonWriter out, List<ProbeKind> value) throws IOException {
            out.value(ProbeKind.join(value));
        }

        @Override
        public List<ProbeKind> read(JsonReader in) throws IOException {
            String s = in.nextString();
            try {
                return ProbeKind.parse(s);
            } catch (UserException e) {
                throw new JsonParseException(e.getMessage());
            }
        }
    }

    /** A value written to args.json as the text it parses from; a text that does not parse is a JSON error. */
    abstract static class TextJson<T> extends TypeAdapter<T> {
        abstract T parse(String s);

        @Override
        public void write(JsonWriter out, T value) throws IOException {
            out.value(value.toString());
        }

        @Override
        public T read(JsonReader in) throws IOException {
            String s = in.nextString();
            try {
                return parse(s);
            } catch (UserException e) {
                throw new JsonParseException(e.getMessage());
            }
        }
    }

    /** args.json's {@code "probeEvery": "epochs"} (a {@link Schedule} as it parses). */
    static final class ScheduleJson extends TextJson<Schedule> {
        @Override
        Schedule parse(String s) {
            return Schedule.parse(s);
        }
    }

    /** args.json's {@code "probePoints": "train"}. */
    static final class ProbePointsJson extends TypeAdapter<ProbePoints> {
        @Override
        public void write(JsonWriter out, ProbePoints value) throws IOException {
            out.value(value.toString());
        }

        @Override
        public ProbePoints read(JsonReader in) throws IOException {
            String s = in.nextString();
            try {
                return ProbePoints.parse(s);
            } catch (UserException e) {
                throw new JsonParseException(e.getMessage());
            }
        }
    }

    /** args.json's {@code "approx": "pntk"}. */
    static final class ApproxJson extends TextJson<ApproxSpec> {
        @Override
        ApproxSpec parse(String s) {
            return ApproxSpec.parse(s);
        }
    }
}
