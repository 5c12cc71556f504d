package org.ntk4j.natives;

import ai.djl.util.cuda.CudaUtils;

/** Run in a child JVM by {@link CudaLayoutTest}: applies the record, then prints DJL's own GPU count. */
public final class GpuCountProbe {
    private GpuCountProbe() {}

    public static void main(String[] args) {
        boolean configured = Natives.configure();
        System.out.println("configured=" + configured + " gpus=" + CudaUtils.getGpuCount() + " jna="
                + System.getProperty("jna.library.path"));
    }
}
