package org.ntk4j.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * What went wrong with a file, in words: the JDK names its I/O failures by class ({@code NoSuchFileException: /x})
 * and libraries add their own decorations (Gson's troubleshooting links); a user reads "no such file or directory:
 * /x" instead.
 */
public final class IoMessages {
    private IoMessages() {}

    /** The failure in words, with the file it concerns when the exception names one. */
    public static String describe(IOException e) {
        if (e instanceof FileSystemException f) {
            String what;
            if (e instanceof NoSuchFileException) {
                what = "no such file or directory";
            } else if (e instanceof AccessDeniedException) {
                what = "permission denied";
            } else if (e instanceof FileAlreadyExistsException) {
                what = "already exists";
            } else if (e instanceof NotDirectoryException) {
                what = "not a directory";
            } else if (e instanceof DirectoryNotEmptyException) {
                what = "folder not empty";
            } else {
                what = f.getReason() != null ? lowerFirst(f.getReason()) : "cannot access";
            }
            String file = f.getFile();
            String other = f.getOtherFile();
            return what + (file != null ? ": " + file : "") + (other != null ? " -> " + other : "");
        }
        return words(e.getMessage());
    }

    /**
     * A library's message made fit for one line: the first line only, without "java.x.YException: " prefixes or
     * "See https://..." pointers to a library's troubleshooting pages.
     */
    public static String words(String message) {
        if (message == null || message.isBlank()) {
            return "unknown cause";
        }
        String s = message.replaceAll("\\s*See https?://\\S+", "")
                .replaceAll("\\b(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)(?::\\s*)?", "")
                .strip();
        int nl = s.indexOf('\n');
        s = (nl >= 0 ? s.substring(0, nl) : s).strip();
        return s.isEmpty() ? "unknown cause" : s;
    }

    private static String lowerFirst(String s) {
        return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
}
