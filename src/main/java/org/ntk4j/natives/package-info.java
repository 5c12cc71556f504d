/**
 * Floor 2 of 12: the PyTorch natives DJL runs on: which libtorch is loaded ({@link org.ntk4j.natives.Natives},
 * {@link org.ntk4j.natives.Torch}) and building DJL's JNI binding against a local libtorch ({@link
 * org.ntk4j.natives.NativeBuild}, {@code ntk4j native build}). The floors are written once in the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.natives;
