package org.ntk4j.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The progress bar: into a log (stderr not a terminal) it writes a plain line per tenth and no carriage return; on a
 * terminal it redraws in place, and an activity (a probe) keeps the line moving while the bar waits, then is removed.
 */
class ProgressBarTest {
    @Test
    void intoALogItWritesLinesNotRedraws() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8);
        ProgressBar bar = new ProgressBar("epoch 1/1", 100, out, false);
        for (int i = 1; i <= 100; i++) {
            bar.update(i);
        }
        try (ProgressBar.Activity a = ProgressBar.activity("probe ntk", out, false)) {
            sleep(300);
        }
        String s = b.toString(StandardCharsets.UTF_8);
        assertFalse(s.contains("\r") || s.contains("\u001b"), "no redraws or escapes in a log: " + s);
        assertEquals(11, s.strip().split("\n").length, "a line per tenth, 0% to 100%: " + s);
        assertFalse(s.contains("probe ntk"), "activities are silent in a log");
    }

    @Test
    void onATerminalAnActivityKeepsTheBarMovingAndLeavesNoTrace() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(b, true, StandardCharsets.UTF_8);
        ProgressBar bar = new ProgressBar("epoch 1/2", 10, out, true);
        bar.update(4);
        int before = b.size();
        try (ProgressBar.Activity a = ProgressBar.activity("probe ntk", out, true)) {
            sleep(900);
        }
        String during = b.toString(StandardCharsets.UTF_8).substring(before);
        long redraws = during.chars().filter(c -> c == '\r').count();
        assertTrue(redraws >= 3, "redrawn while the probe runs: " + redraws + " in " + during);
        assertTrue(during.contains("epoch 1/2") && during.contains("| probe ntk"), during);
        String last = during.substring(during.lastIndexOf('\r'));
        assertTrue(last.contains("4/10") && !last.contains("probe ntk"), "the bar without the note: " + last);

        // between bars: a line of its own, erased at the end
        bar.update(10);
        int mid = b.size();
        try (ProgressBar.Activity a = ProgressBar.activity("probe nc", out, true)) {
            sleep(400);
        }
        String between = b.toString(StandardCharsets.UTF_8).substring(mid);
        assertTrue(between.contains("probe nc"), between);
        assertTrue(between.endsWith("\r\u001b[K"), "erased: " + between);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
