/**
 * Floor 2 of 12: the JSON specs of models ({@link org.ntk4j.spec.ModelSpec}), training runs ({@link
 * org.ntk4j.spec.TrainSpec}) and synthetic datasets ({@link org.ntk4j.spec.DatasetSpec}), read strictly ({@link
 * org.ntk4j.spec.Specs}: an unknown field or a bad value is one line naming the file and field), and their closed
 * choices as enums with a JSON name ({@link org.ntk4j.spec.SpecName}). The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.spec;
