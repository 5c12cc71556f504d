package org.ntk4j.job;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.ntk4j.report.Files2;

/**
 * A run folder's {@code args.json} as {@code train --resume} found it. A resume that extends the run ({@code --epochs})
 * rewrites args.json before training; when it then fails before its checkpoint moved on (a damaged checkpoint, a
 * missing dataset), the folder must describe the run as it was, or the next plain {@code --resume} would continue to
 * epochs the user never got.
 */
final class ResumeGuard {
    private final Path args;
    private final Path state;
    private final byte[] argsBefore;
    private final byte[] stateBefore;

    ResumeGuard(Path dir) {
        this.args = dir.resolve("args.json");
        this.state = dir.resolve("checkpoint").resolve("state.json");
        this.argsBefore = read(args);
        this.stateBefore = read(state);
    }

    /** Puts args.json back as it was, unless the run has written a new checkpoint meanwhile. */
    void restoreIfUnchanged() {
        if (argsBefore == null || Arrays.equals(read(args), argsBefore)) {
            return;
        }
        if (!Arrays.equals(read(state), stateBefore)) {
            return; // the run moved on: args.json describes the checkpoint it wrote
        }
        Files2.writeAtomically(args, os -> os.write(argsBefore));
    }

    private static byte[] read(Path p) {
        try {
            return Files.isRegularFile(p) ? Files.readAllBytes(p) : null;
        } catch (IOException e) {
            return null;
        }
    }
}
