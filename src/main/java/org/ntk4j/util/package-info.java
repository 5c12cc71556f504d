/**
 * Floor 1 of 12: small helpers every floor may use: where arrays live ({@link org.ntk4j.util.Devices}), what this
 * machine has and uses (threads, CPU time, load, peak memory: {@link org.ntk4j.util.Machine}), how numbers are
 * written and read ({@link org.ntk4j.util.Numbers}) and what a job may ask of this machine ({@link
 * org.ntk4j.util.MachineBudget}: memory, disk, threads, device). The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.util;
