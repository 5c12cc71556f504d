/**
 * What the studies share and nothing paper-specific: {@link org.ntk4j.experiment.support.Study} (a study with its
 * catalogue entry) and {@link org.ntk4j.experiment.support.Paper}, {@link org.ntk4j.experiment.support.Scale},
 * {@link org.ntk4j.experiment.support.Verdicts} and {@link org.ntk4j.experiment.support.StudyReport} (the verdict
 * table and report.html), {@link org.ntk4j.experiment.support.Series}, {@link org.ntk4j.experiment.support.Stats}
 * and {@link org.ntk4j.experiment.support.Tables} (series, statistics and number formats),
 * {@link org.ntk4j.experiment.support.StudyData} (the datasets on this machine) and
 * {@link org.ntk4j.experiment.support.TwoLayerNet} (a two-layer net in plain Java with its analytic NTK).
 */
package org.ntk4j.experiment.support;
