package org.ntk4j.data;

/** Which part of a dataset to load: the training set or the held-out test set. */
public enum Split {
    TRAIN,
    TEST
}
