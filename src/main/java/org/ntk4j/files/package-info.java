/**
 * Floor 1 of 12: the rules every file ntk4j writes keeps: one naming and cleaning rule for temporaries ({@link
 * org.ntk4j.files.TempFiles}), one writer per output ({@link org.ntk4j.files.OutputLock}) and file errors said in
 * words ({@link org.ntk4j.files.IoMessages}). The floors are written once in the test source {@code
 * org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.files;
