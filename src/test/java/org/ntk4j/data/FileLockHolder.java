package org.ntk4j.data;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** Test helper: holds an OS lock on a file in its own process until killed (another fetch, another run). */
final class FileLockHolder {
    private FileLockHolder() {}

    public static void main(String[] args) throws Exception {
        FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        ch.lock();
        System.out.print("locked\n");
        System.out.flush();
        Thread.sleep(600_000);
    }
}
