package org.ntk4j.kernel;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.Random;
import org.ntk4j.kernel.factor.Mode;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;

/**
 * Child process of {@link ShutdownDuringBackwardTest}: computes structured NTKs of a network in a loop on the
 * main thread while a watcher thread waits until the main thread is inside libtorch's backward
 * ({@code PyTorchLibrary.torchBackward}) and then sends SIGTERM to this process, as {@code timeout} or Ctrl-C
 * does. Arguments: the model spec (JSON), the number of samples N.
 */
public final class SignalDuringBackward {
    private SignalDuringBackward() {}

    public static void main(String[] args) throws Exception {
        ModelSpec spec = ModelSpec.parse(args[0], "test");
        int n = Integer.parseInt(args[1]);
        Thread main = Thread.currentThread();
        Thread watcher = new Thread(
                () -> {
                    try {
                        while (!inBackward(main)) {
                            Thread.sleep(1);
                        }
                        System.out.println("SIGTERM during backward");
                        System.out.flush();
                        long pid = ProcessHandle.current().pid();
                        new ProcessBuilder("kill", "-TERM", Long.toString(pid))
                                .inheritIO()
                                .start()
                                .waitFor();
                    } catch (Exception e) {
                        e.printStackTrace();
                        Runtime.getRuntime().halt(3);
                    }
                },
                "signal-during-backward");
        watcher.setDaemon(true);
        try (NDManager m = NDManager.newBaseManager()) {
            Network net = Network.build(spec, 7, m, DataType.FLOAT32);
            long[] in = net.inputShape().getShape();
            long[] dims = new long[in.length + 1];
            dims[0] = n;
            System.arraycopy(in, 0, dims, 1, in.length);
            Shape shape = new Shape(dims);
            float[] v = new float[Math.toIntExact(shape.size())];
            Random r = new Random(1);
            for (int i = 0; i < v.length; i++) {
                v[i] = (float) r.nextGaussian();
            }
            NDArray x;
            try (NDArray tmp = m.create(v, shape)) {
                x = tmp.duplicate();
            }
            watcher.start();
            for (int k = 0; ; k++) {
                long t0 = System.nanoTime();
                Ntk.of(net).mode(Mode.TRACE).compute(x);
                System.out.printf("kernel %d: %.2f s%n", k, (System.nanoTime() - t0) / 1e9);
            }
        }
    }

    private static boolean inBackward(Thread t) {
        StackTraceElement[] s = t.getStackTrace();
        return s.length > 0 && s[0].isNativeMethod() && "torchBackward".equals(s[0].getMethodName());
    }
}
