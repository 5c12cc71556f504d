/**
 * Floor 1 of 12, beside {@code org.ntk4j} and {@code util} (which applies it when it picks a device): DJL's
 * PyTorch binding against the PyTorch a machine has. {@link org.ntk4j.natives.Torch} finds it (headers,
 * libraries, version, C++ ABI, CUDA headers and runtime), {@link org.ntk4j.natives.NativeBuild} compiles DJL's
 * JNI sources and ntk4j's {@link org.ntk4j.natives.TorchFlags} against it and records the result ({@code ntk4j
 * native build}), {@link org.ntk4j.natives.Natives} applies the record (also from {@link
 * org.ntk4j.natives.ConfiguringEngineProvider}, when DJL's engine initialises). The floors are written once in
 * the test source {@code org.ntk4j.arch.Floors} and checked by {@code LayersTest}.
 */
package org.ntk4j.natives;
