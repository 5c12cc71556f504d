package org.ntk4j.spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A synthetic regression dataset (strict JSON, like {@link ModelSpec}; immutable): the teacher
 * tasks of Atanasov, Bordelon &amp; Pehlevan, "Neural networks as kernel learners: the silent
 * alignment effect", and of Xu &amp; Ziyin, "When Does Feature Learning Happen?" (linear teachers on
 * whitened or anisotropic Gaussian inputs, multi-output teachers with prescribed singular values),
 * and the chain monomial of "Feature learning as alignment" (anonymous), generated
 * deterministically from {@code seed} by {@code org.ntk4j.data.Synthetic}. Use it wherever a
 * dataset name is accepted, by path or by name from the project's {@code datasets/} folder.
 *
 * @param name the dataset's name
 * @param kind whitened-linear-teacher | anisotropic-linear-teacher | multi-output-teacher | chain-monomial
 * @param d input dimension D
 * @param train training points P
 * @param test fresh test points from the same input distribution (0 = none)
 * @param s teacher scale s: y = s·βᵀx with ‖β‖ = 1 (linear teachers)
 * @param seed the generator's seed
 * @param spectrum anisotropic-linear-teacher: covariance spectrum power-law (λ_k = k^−α), geometric
 *     (first → last) or inverse-one-plus-power (1/(1 + k^α))
 * @param alpha the spectrum's exponent α
 * @param first geometric spectrum: the first eigenvalue
 * @param last geometric spectrum: the last eigenvalue
 * @param haarBasis anisotropic-linear-teacher: eigenbasis drawn from the Haar measure (else axis-aligned)
 * @param singularValues multi-output-teacher: the singular values of β (one output per value)
 * @param r chain-monomial: degree r, y = Σ_{i&lt;r} x_i x_{(i+1) mod r}
 */
public record DatasetSpec(
        String name,
        DatasetKind kind,
        int d,
        int train,
        int test,
        double s,
        long seed,
        Spectrum spectrum,
        double alpha,
        double first,
        double last,
        boolean haarBasis,
        double[] singularValues,
        int r) {
    public static final List<String> KINDS =
            List.of("whitened-linear-teacher", "anisotropic-linear-teacher", "multi-output-teacher", "chain-monomial");
    public static final List<String> SPECTRA = List.of("power-law", "geometric", "inverse-one-plus-power");

    /** Outputs per sample of the generated targets. */
    public int outputs() {
        return kind == DatasetKind.MULTI_OUTPUT_TEACHER ? singularValues.length : 1;
    }

    /** A builder with the defaults a spec file's missing fields take. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this spec's values. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.name = name;
        b.kind = kind == null ? null : kind.json();
        b.d = d;
        b.train = train;
        b.test = test;
        b.s = s;
        b.seed = seed;
        b.spectrum = spectrum == null ? null : spectrum.json();
        b.alpha = alpha;
        b.first = first;
        b.last = last;
        b.haarBasis = haarBasis;
        b.singularValues = singularValues;
        b.r = r;
        return b;
    }

    /** Parses and validates spec JSON ({@code source} names it in messages). */
    public static DatasetSpec parse(String json, String source) {
        return Specs.parse(json, Builder.class, source).validate(source);
    }

    /** Whether {@code ref} names a synthetic dataset: a JSON file, or a spec in datasets/. */
    public static boolean exists(String ref) {
        return ref != null
                && (ref.endsWith(".json") && Files.isRegularFile(Path.of(ref))
                        || !ref.contains("/") && Specs.isNamed(ref, "datasets"));
    }

    public static DatasetSpec resolve(String ref) {
        Specs.Source src = Specs.source(ref, "datasets", "synthetic dataset");
        return parse(src.json(), src.origin());
    }

    /** The project's datasets/ folder (system property ntk4j.root, else the working directory). */
    public static Path datasetsDir() {
        return Specs.projectDir("datasets");
    }

    /** Names of the specs in datasets/. */
    public static List<String> available() {
        return Specs.names("datasets");
    }

    /**
     * A spec under construction, and the form Gson reads spec files into: the choices are held as
     * their JSON names until {@link #validate} checks them or {@link #build} maps them to enums.
     */
    public static final class Builder {
        public String name = "synthetic";
        public String kind;
        public int d;
        public int train;
        public int test;
        public double s = 1.0;
        public long seed;
        public String spectrum = "power-law";
        public double alpha = 1.0;
        public double first = 4.0;
        public double last = 0.05;
        public boolean haarBasis = true;
        public double[] singularValues;
        public int r = 2;

        public Builder name(String v) {
            name = v;
            return this;
        }

        public Builder kind(DatasetKind v) {
            kind = v == null ? null : v.json();
            return this;
        }

        public Builder d(int v) {
            d = v;
            return this;
        }

        public Builder train(int v) {
            train = v;
            return this;
        }

        public Builder test(int v) {
            test = v;
            return this;
        }

        public Builder s(double v) {
            s = v;
            return this;
        }

        public Builder seed(long v) {
            seed = v;
            return this;
        }

        public Builder spectrum(Spectrum v) {
            spectrum = v == null ? null : v.json();
            return this;
        }

        public Builder alpha(double v) {
            alpha = v;
            return this;
        }

        public Builder first(double v) {
            first = v;
            return this;
        }

        public Builder last(double v) {
            last = v;
            return this;
        }

        public Builder haarBasis(boolean v) {
            haarBasis = v;
            return this;
        }

        public Builder singularValues(double[] v) {
            singularValues = v;
            return this;
        }

        public Builder r(int v) {
            r = v;
            return this;
        }

        /** The spec; choices are mapped to their enums without validation (unknown names become null). */
        public DatasetSpec build() {
            return new DatasetSpec(
                    name,
                    DatasetKind.of(kind),
                    d,
                    train,
                    test,
                    s,
                    seed,
                    Spectrum.of(spectrum),
                    alpha,
                    first,
                    last,
                    haarBasis,
                    singularValues,
                    r);
        }

        /** Checks every field; throws a one-line UserException naming the first bad one; else builds the spec. */
        public DatasetSpec validate(String source) {
            Specs.Problems p = new Specs.Problems(source);
            p.require(
                    kind != null && KINDS.contains(kind.toLowerCase(Locale.ROOT)),
                    "kind",
                    "must be one of " + KINDS + " (got " + kind + ")");
            p.require(d >= 1, "d", "must be >= 1 (got " + d + ")");
            p.require(train >= 1, "train", "must be >= 1 (got " + train + ")");
            p.require(test >= 0, "test", "must be >= 0 (got " + test + ")");
            p.require(s > 0 && Double.isFinite(s), "s", "must be a positive number (got " + s + ")");
            p.require(SPECTRA.contains(spectrum), "spectrum", "must be one of " + SPECTRA + " (got " + spectrum + ")");
            p.require(first > 0 && last > 0, "first/last", "must be positive eigenvalues");
            boolean multi = "multi-output-teacher".equals(kind);
            p.require(
                    !multi || singularValues != null && singularValues.length >= 1,
                    "singularValues",
                    "must list the teacher's singular values (one per output)");
            p.require(!"chain-monomial".equals(kind) || r >= 2 && r <= d, "r", "must be in [2, d] (got " + r + ")");
            p.check();
            kind = kind.toLowerCase(Locale.ROOT);
            return build();
        }
    }
}
