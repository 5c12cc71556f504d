/**
 * Floor 6 of 12: the training loop ({@link org.ntk4j.train.Trainer}) with its losses, optimisers, learning-rate
 * schedules and listeners. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.train;
