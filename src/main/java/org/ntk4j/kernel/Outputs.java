package org.ntk4j.kernel;

import ai.djl.Device;
import ai.djl.ndarray.types.DataType;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.ntk4j.kernel.factor.Mode;

/**
 * The sinks of one computation, made as their kernels first appear: the total, one per layer (or parameter) and the
 * factor kernels, all of one placement.
 */
final class Outputs {
    private final int rows;
    private final int cols;
    private final int tile;
    private final int outputs;
    private final DataType type;
    private final KernelPlacement placement;
    private final Device device;
    private final Path spill;
    private final HostBytes host = new HostBytes();
    private final Map<String, KernelSink> layers = new LinkedHashMap<>();
    private final Map<String, KernelSink> factors = new LinkedHashMap<>();
    private final KernelSink total;
    private final Mode mode;

    /**
     * @param type float32, or float64 for float64 accumulation (DISK is float32)
     * @param device the compute device
     * @param spill the spill directory (DISK only)
     */
    Outputs(
            int rows,
            int cols,
            int tile,
            Mode mode,
            int outputs,
            DataType type,
            KernelPlacement placement,
            Device device,
            Path spill) {
        this.rows = rows;
        this.cols = cols;
        this.tile = tile;
        this.mode = mode;
        this.outputs = outputs;
        this.type = type;
        this.placement = placement;
        this.device = device;
        this.spill = spill;
        this.total = sink(mode);
    }

    private KernelSink sink(Mode m) {
        switch (placement) {
            case DEVICE:
                return new EngineSink(rows, cols, m, outputs, type, device, false, host);
            case HOST:
                return new EngineSink(rows, cols, m, outputs, type, Device.cpu(), true, host);
            case DEVICE_SLABS:
                return new SlabSink(rows, cols, tile, m, outputs, type, device, host);
            default:
                return new MappedSink(rows, cols, m, outputs, spill, host);
        }
    }

    KernelSink total() {
        return total;
    }

    KernelSink layer(String name) {
        return layers.computeIfAbsent(name, k -> sink(mode));
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
