package org.ntk4j.model;

/** A running count of trainable parameters, filled by {@link Module#plan} without creating any array. */
public final class ParameterCount {
    private long trainable;

    /** Adds {@code n} trainable parameters. */
    public void add(long n) {
        trainable += n;
    }

    /** The trainable parameters counted so far. */
    public long trainable() {
        return trainable;
    }
}
