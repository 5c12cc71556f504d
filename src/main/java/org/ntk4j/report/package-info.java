/**
 * Floor 5 of 12: what runs leave behind: NPZ and NPY files ({@link org.ntk4j.report.Npz}, {@link
 * org.ntk4j.report.NpzReader}, {@link org.ntk4j.report.NpyFile}), run folders ({@link org.ntk4j.report.RunFolder}),
 * HTML reports and plots ({@link org.ntk4j.report.HtmlReport}, {@link org.ntk4j.report.Plots}), progress bars and
 * atomic file writes. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.report;
