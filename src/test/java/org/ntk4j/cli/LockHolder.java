package org.ntk4j.cli;

import java.nio.file.Path;
import org.ntk4j.report.RunFolder;

/** Test helper: holds a run folder's lock in its own process until killed. */
final class LockHolder {
    private LockHolder() {}

    public static void main(String[] args) throws Exception {
        RunFolder f = new RunFolder(Path.of(args[0]));
        f.lock();
        System.out.print("locked\n");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
