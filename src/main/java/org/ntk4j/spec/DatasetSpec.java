package org.ntk4j.spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * A synthetic regression dataset (strict JSON, like {@link ModelSpec}): the teacher tasks of seeds
 * 001 and 004 (linear teachers on whitened or anisotropic Gaussian inputs, multi-output teachers with
 * prescribed singular values) and seed 002's chain monomial, generated deterministically from
 * {@code seed} by {@code org.ntk4j.data.Synthetic}. Use it wherever a dataset name is accepted, by
 * path or by name from the project's {@code datasets/} folder.
 */
public final class DatasetSpec {
    public static final List<String> KINDS = List.of("whitened-linear-teacher", "anisotropic-linear-teacher",
            "multi-output-teacher", "chain-monomial");
    public static final List<String> SPECTRA = List.of("power-law", "geometric", "inverse-one-plus-power");

    public String name = "synthetic";
    /** whitened-linear-teacher | anisotropic-linear-teacher | multi-output-teacher | chain-monomial. */
    public String kind;
    /** Input dimension D. */
    public int d;
    /** Training points P. */
    public int train;
    /** Fresh test points from the same input distribution (0 = none). */
    public int test;
    /** Teacher scale s: y = s·βᵀx with ‖β‖ = 1 (linear teachers). */
    public double s = 1.0;
    public long seed;
    /** anisotropic-linear-teacher: covariance spectrum power-law (λ_k = k^−α), geometric (first → last) or inverse-one-plus-power (1/(1 + k^α)). */
    public String spectrum = "power-law";
    public double alpha = 1.0;
    public double first = 4.0;
    public double last = 0.05;
    /** anisotropic-linear-teacher: eigenbasis drawn from the Haar measure (else axis-aligned). */
    public boolean haarBasis = true;
    /** multi-output-teacher: the singular values of β (one output per value). */
    public double[] singularValues;
    /** chain-monomial: degree r, y = Σ_{i<r} x_i x_{(i+1) mod r}. */
    public int r = 2;

    public DatasetSpec validate(String source) {
        Specs.Problems p = new Specs.Problems(source);
        p.require(kind != null && KINDS.contains(kind.toLowerCase(Locale.ROOT)), "kind", "must be one of " + KINDS + " (got " + kind + ")");
        p.require(d >= 1, "d", "must be >= 1 (got " + d + ")");
        p.require(train >= 1, "train", "must be >= 1 (got " + train + ")");
        p.require(test >= 0, "test", "must be >= 0 (got " + test + ")");
        p.require(s > 0 && Double.isFinite(s), "s", "must be a positive number (got " + s + ")");
        p.require(SPECTRA.contains(spectrum), "spectrum", "must be one of " + SPECTRA + " (got " + spectrum + ")");
        p.require(first > 0 && last > 0, "first/last", "must be positive eigenvalues");
        boolean multi = "multi-output-teacher".equals(kind);
        p.require(!multi || singularValues != null && singularValues.length >= 1, "singularValues",
                "must list the teacher's singular values (one per output)");
        p.require(!"chain-monomial".equals(kind) || r >= 2 && r <= d, "r", "must be in [2, d] (got " + r + ")");
        p.check();
        kind = kind.toLowerCase(Locale.ROOT);
        return this;
    }

    /** Outputs per sample of the generated targets. */
    public int outputs() {
        return "multi-output-teacher".equals(kind) ? singularValues.length : 1;
    }

    /** Whether {@code ref} names a synthetic dataset: a JSON file, or a spec in datasets/. */
    public static boolean exists(String ref) {
        return ref != null && (ref.endsWith(".json") && Files.isRegularFile(Path.of(ref))
                || !ref.contains("/") && Specs.isNamed(ref, "datasets"));
    }

    public static DatasetSpec resolve(String ref) {
        Specs.Source src = Specs.source(ref, "datasets", "synthetic dataset");
        return Specs.parse(src.json(), DatasetSpec.class, src.origin()).validate(src.origin());
    }

    /** The project's datasets/ folder (system property ntk4j.root, else the working directory). */
    public static Path datasetsDir() {
        return Specs.projectDir("datasets");
    }

    /** Names of the specs in datasets/. */
    public static List<String> available() {
        return Specs.names("datasets");
    }
}
