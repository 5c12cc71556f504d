/**
 * Floor 11 of 12: the reproduced studies ({@link org.ntk4j.experiment.Study}, {@code ntk4j reproduce}): each trains
 * and measures what a paper claims and computes its verdict against a stated criterion. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.experiment;
