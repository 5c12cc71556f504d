package org.ntk4j.experiment.support;

/** The five seed papers the studies reproduce, with the short names the README and the reports use. */
public enum Paper {
    /** Seed 000. */
    EQUILIBRIUM_HYPOTHESIS(
            "000",
            "Equilibrium Hypothesis",
            "Lou, Mingard and Hayou, \"The Equilibrium Hypothesis: Rethinking implicit regularization in Deep Neural"
                    + " Networks\""),
    /** Seed 001. */
    SILENT_ALIGNMENT(
            "001",
            "Silent Alignment",
            "Atanasov, Bordelon and Pehlevan, \"Neural networks as kernel learners: the silent alignment effect\""
                    + " (ICLR 2022)"),
    /** Seed 002. */
    FEATURE_LEARNING_AS_ALIGNMENT(
            "002",
            "Feature Learning as Alignment",
            "\"Feature learning as alignment: a structural property of gradient descent in non-linear neural"
                    + " networks\" (anonymous)"),
    /** Seed 003. */
    SELEZNOVA_THESIS(
            "003",
            "Seleznova's thesis",
            "Seleznova, \"Analyzing Training Dynamics of Deep Neural Networks: Insights and Limitations of the Neural"
                    + " Tangent Kernel Regime\" (PhD thesis, LMU München 2024)"),
    /** Seed 004. */
    XU_ZIYIN(
            "004",
            "Xu & Ziyin",
            "Xu and Ziyin, \"When Does Feature Learning Happen? Perspective from an Analytically Solvable Model\""
                    + " (arXiv:2401.07085)");

    private final String seed;
    private final String shortName;
    private final String citation;

    Paper(String seed, String shortName, String citation) {
        this.seed = seed;
        this.shortName = shortName;
        this.citation = citation;
    }

    /** The seed number, 000 to 004. */
    public String seed() {
        return seed;
    }

    /** The short name used in the README's table, e.g. "Silent Alignment". */
    public String shortName() {
        return shortName;
    }

    /** Authors and title. */
    public String citation() {
        return citation;
    }
}
