/**
 * Floor 11 of 12: reproductions of the five seed papers, one command each ({@code ntk4j reproduce NAME}): every
 * study trains or samples networks at a {@link org.ntk4j.experiment.support.Scale} (quick for the tests, cpu by
 * default, paper for a GPU), writes plots, results.json and report.html into a folder, and prints the measured
 * numbers beside the paper's with a computed verdict (reproduced / partly / not) and its criterion. The floors are
 * written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 *
 * <p>{@link org.ntk4j.experiment.Studies} is the registry ({@code reproduce --list}, {@code --help}); below it one
 * package per paper ({@code equilibrium}, {@code silentalignment}, {@code featurealignment}, {@code ntkregime},
 * {@code solvable}), each with its studies and one or two setup classes, and {@code support}, the only code they
 * share. A new study is a class with a {@code Settings} record (built by name, one method per scale) and a
 * {@code STUDY} built with {@code StudyBuilder}, in its paper's package, added to {@code Studies}.
 */
package org.ntk4j.experiment;
