/**
 * DJL's PyTorch binding against the PyTorch a machine has: {@link org.ntk4j.natives.Torch} finds it
 * (headers, libraries, version, C++ ABI, CUDA headers and runtime), {@link org.ntk4j.natives.NativeBuild}
 * compiles DJL's JNI sources and ntk4j's {@link org.ntk4j.natives.TorchFlags} against it and records
 * the result, {@link org.ntk4j.natives.Natives} applies the record (also from
 * {@link org.ntk4j.natives.ConfiguringEngineProvider}, when DJL's engine initialises).
 */
package org.ntk4j.natives;
