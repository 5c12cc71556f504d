package org.ntk4j.approx;

import java.util.Locale;
import org.ntk4j.UserException;

/**
 * One approximate kernel, parsed once from its text form:
 * <pre>
 *   pntk                              the pseudo-NTK of the summed logits (Mohamadi, Bae &amp; Sutherland, ICML 2023)
 *   sketch:K[:kr|:gauss]              tangent features projected to K dimensions (Khatri–Rao by default)
 *   nystrom:M[:uniform|:leverage]     M landmark columns of the exact kernel (uniform by default)
 *   nystrom:auto                      landmarks grown until the held-out error is below a target
 * </pre>
 *
 * @param kind the approximation
 * @param rank K or M; 0 for pntk and for nystrom:auto
 * @param variant the projection (kr, gauss) or the landmark choice (uniform, leverage); "" for pntk
 */
public record ApproxSpec(Kind kind, int rank, String variant) {
    /** The approximations. */
    public enum Kind {
        PNTK,
        SKETCH,
        NYSTROM;

        /** The name in the text form. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The form of the text, for messages. */
    public static final String FORMS = "pntk, sketch:K[:kr|:gauss], nystrom:M[:uniform|:leverage] or nystrom:auto";

    public ApproxSpec {
        if (kind == null || variant == null) {
            throw new IllegalArgumentException("kind and variant are required");
        }
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0 (got " + rank + ")");
        }
    }

    /** Whether the rank is chosen from a target error ({@code nystrom:auto}). */
    public boolean auto() {
        return kind == Kind.NYSTROM && rank == 0;
    }

    /** Whether the approximation is a {@link LowRankKernel} (sketch and Nyström), not a kernel of its own (pNTK). */
    public boolean lowRank() {
        return kind != Kind.PNTK;
    }

    /**
     * Parses the text form; a malformed one is refused in one line naming it and the forms.
     *
     * @throws UserException on a malformed text
     */
    public static ApproxSpec parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        String[] p = t.split(":", -1);
        String bad = "--approx '" + text + "' is not one of " + FORMS;
        switch (p[0]) {
            case "pntk":
                if (p.length != 1) {
                    throw new UserException(bad + " (pntk takes no rank)");
                }
                return new ApproxSpec(Kind.PNTK, 0, "");
            case "sketch":
                return ranked(Kind.SKETCH, p, "kr", new String[] {"kr", "gauss"}, bad);
            case "nystrom":
                if (p.length == 2 && p[1].equals("auto")) {
                    return new ApproxSpec(Kind.NYSTROM, 0, "uniform");
                }
                return ranked(Kind.NYSTROM, p, "uniform", new String[] {"uniform", "leverage"}, bad);
            default:
                throw new UserException(bad);
        }
    }

    private static ApproxSpec ranked(Kind kind, String[] p, String dflt, String[] variants, String bad) {
        if (p.length < 2 || p.length > 3) {
            throw new UserException(bad);
        }
        int r;
        try {
            r = Integer.parseInt(p[1]);
        } catch (NumberFormatException e) {
            throw new UserException(bad + " (the rank '" + p[1] + "' is not a whole number)");
        }
        if (r < 1) {
            throw new UserException(bad + " (the rank must be >= 1, got " + r + ")");
        }
        String v = p.length == 3 ? p[2] : dflt;
        if (!java.util.Arrays.asList(variants).contains(v)) {
            throw new UserException(bad + " ('" + v + "' is not " + String.join(" or ", variants) + ")");
        }
        return new ApproxSpec(kind, r, v);
    }

    /** The text form, as {@link #parse} reads it. */
    @Override
    public String toString() {
        return switch (kind) {
            case PNTK -> "pntk";
            case SKETCH -> "sketch:" + rank + ":" + variant;
            case NYSTROM -> "nystrom:" + (rank == 0 ? "auto" : rank + ":" + variant);
        };
    }
}
