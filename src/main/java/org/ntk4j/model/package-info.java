/**
 * Floor 3 of 12: networks and their layers. A {@link org.ntk4j.model.Network} is a tree of {@link
 * org.ntk4j.model.Module}s built from a model spec ({@link org.ntk4j.model.Models}) or wrapped around DJL blocks
 * ({@link org.ntk4j.model.DjlBlocks}); its {@link org.ntk4j.model.Param}s carry names and roles. Layers that
 * implement {@link org.ntk4j.model.TangentLayer} hand the kernel engine their tangent factors in probe mode
 * ({@link org.ntk4j.model.TangentProbe}). The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.model;
