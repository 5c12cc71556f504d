package org.ntk4j.request;

import org.ntk4j.OptionKey;

/**
 * The settings of a kernel computation that messages name ({@link org.ntk4j.OptionException}): those of a
 * {@link KernelRequest}, of the job that writes it, and of its shards. The key is the constant in lower camel
 * case ({@code PER_CLASS} → {@code perClass}), as the builder methods are named; the command line spells it
 * {@code --per-class}.
 */
public enum KernelOption implements OptionKey {
    MODEL,
    WEIGHTS,
    SEED,
    DATASET,
    N,
    PER_CLASS,
    TEST,
    PAD,
    MODE,
    METHOD,
    DTYPE,
    MEMORY,
    DEVICE_MEMORY,
    SPILL_DIR,
    TILE,
    FACTOR_KERNELS,
    OUT,
    FORCE,
    FORMAT,
    SHARD_SIZE,
    WORKERS,
    ROWS,
    TEST_ROWS,
    HOLDOUT_ROWS,
    COLS,
    DRY_RUN
}
