package org.ntk4j.files;

import java.nio.file.Path;

/** Test helper: holds the output lock of {@code args[0]} in its own process until killed. */
final class OutputLockHolder {
    private OutputLockHolder() {}

    public static void main(String[] args) throws Exception {
        OutputLock.acquire(Path.of(args[0]), "--out " + args[0]);
        System.out.print("locked\n");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
