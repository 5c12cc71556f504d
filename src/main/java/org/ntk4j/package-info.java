/**
 * ntk4j: train vision networks on Deep Java Library and measure their neural tangent kernels.
 *
 * <p>Floor 1 of 12 (the ground): {@link org.ntk4j.UserException} (a mistake of the user's, one line, exit 2),
 * {@link org.ntk4j.OptionException} with {@link org.ntk4j.OptionKey} (the same, naming a setting by its library key,
 * which each front end spells as its own option). The packages stand on floors, from the ground up: {@code util};
 * {@code spec}, {@code io}, {@code natives}; {@code model}, {@code data}, {@code theory}; {@code kernel}; {@code
 * report}, {@code metrics}; {@code train}; {@code probe}; {@code request}; {@code shard}; {@code job}; {@code
 * experiment}; {@code cli}. A package uses its own floor and those below, never those above. The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j;
