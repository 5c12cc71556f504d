package org.ntk4j.kernel;

import ai.djl.Device;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.kernel.factor.Mode;

/**
 * The sinks of one computation, made as their kernels first appear: the total, one per layer (or parameter) and the
 * factor kernels, all of one placement.
 */
final class Outputs {
    private final SinkShape shape;
    private final int tile;
    private final KernelPlacement placement;
    private final Device device;
    private final Path spill;
    private final HostBytes host = new HostBytes();
    private final Map<String, KernelSink> layers = new LinkedHashMap<>();
    private final Map<String, KernelSink> factors = new LinkedHashMap<>();
    private final KernelSink total;

    /**
     * @param shape the total kernel's shape and type (float64 for float64 accumulation; DISK is float32)
     * @param device the compute device
     * @param spill the spill directory (DISK only)
     */
    Outputs(SinkShape shape, int tile, KernelPlacement placement, Device device, Path spill) {
        this.shape = shape;
        this.tile = tile;
        this.placement = placement;
        this.device = device;
        this.spill = spill;
        this.total = sink(shape.mode());
    }

    private KernelSink sink(Mode m) {
        SinkShape s = shape.withMode(m);
        switch (placement) {
            case DEVICE:
                return new EngineSink(s, device, false, host);
            case HOST:
                return new EngineSink(s, Device.cpu(), true, host);
            case DEVICE_SLABS:
                return new SlabSink(s, tile, device, host);
            default:
                return new MappedSink(s.rows(), s.cols(), m, s.outputs(), spill, host);
        }
    }

    KernelSink total() {
        return total;
    }

    KernelSink layer(String name) {
        return layers.computeIfAbsent(name, k -> sink(shape.mode()));
    }

    KernelSink factor(String name) {
        return factors.computeIfAbsent(name, k -> sink(Mode.TRACE));
    }

    void rowsDone(int r0, int r1) {
        total.rowsDone(r0, r1);
        layers.values().forEach(s -> s.rowsDone(r0, r1));
        factors.values().forEach(s -> s.rowsDone(r0, r1));
    }

    /** The finished layer kernels, by name, in the order they first appeared. */
    Map<String, KernelMatrix> finishLayers() {
        Map<String, KernelMatrix> m = new LinkedHashMap<>();
        layers.forEach((k, s) -> m.put(k, s.finish()));
        return m;
    }

    Map<String, KernelMatrix> finishFactors() {
        Map<String, KernelMatrix> m = new LinkedHashMap<>();
        factors.forEach((k, s) -> m.put(k, s.finish()));
        return m;
    }

    KernelMatrix finishTotal() {
        return total.finish();
    }

    /** Releases every sink (a failed computation). */
    void abandon() {
        total.abandon();
        layers.values().forEach(KernelSink::abandon);
        factors.values().forEach(KernelSink::abandon);
    }

    HostBytes host() {
        return host;
    }

    KernelPlacement placement() {
        return placement;
    }
}
