package org.ntk4j.kernel;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.NDScope;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;

/**
 * The clock of the phase timings (factors, contraction, host). On a GPU the engine queues work and returns: a clock
 * read then would charge queued work to the next phase, so {@link #now()} first waits for the device, by copying a
 * one-element array from it (the copy waits for everything queued before it). On the CPU the work is done when the
 * call returns and {@link #now()} only reads the clock.
 */
final class PhaseClock implements AutoCloseable {
    private final NDManager manager;
    private final NDArray probe;

    PhaseClock(Device device) {
        if (device.equals(Device.cpu())) {
            this.manager = null;
            this.probe = null;
        } else {
            this.manager = NDManager.newBaseManager(device);
            NDArray p = manager.zeros(new Shape(1), DataType.FLOAT32);
            NDScope.unregister(p);
            this.probe = p;
        }
    }

    /** Nanoseconds, after the device has finished what was queued on it. */
    long now() {
        if (probe != null) {
            NDArray h = probe.toDevice(Device.cpu(), true);
            NDScope.unregister(h); // the clock's copy is not a tile pair's work
            h.close();
        }
        return System.nanoTime();
    }

    @Override
    public void close() {
        if (manager != null) {
            manager.close();
        }
    }
}
