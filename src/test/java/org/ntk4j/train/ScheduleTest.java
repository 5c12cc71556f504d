package org.ntk4j.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

class ScheduleTest {
    static List<Long> firing(Schedule s, long steps, long perEpoch) {
        List<Long> out = new ArrayList<>();
        // the trainer's calls: step 0, then every step, flagged at epoch ends
        if (s.due(0, false)) {
            out.add(0L);
        }
        for (long t = 1; t <= steps; t++) {
            if (s.due(t, t % perEpoch == 0)) {
                out.add(t);
            }
        }
        return out;
    }

    @Test
    void epochsEveryAndLogSpaced() {
        assertEquals(List.of(0L, 10L, 20L, 30L), firing(Schedule.parse("epochs"), 30, 10));
        assertEquals(List.of(0L, 7L, 14L, 21L, 28L), firing(Schedule.parse("every:7"), 30, 10));
        assertEquals(List.of(0L, 1L, 10L, 100L, 1000L), firing(Schedule.parse("log:4:1000"), 1000, 100));
        List<Long> log = firing(Schedule.parse("log:20:100000"), 100000, 1000);
        assertTrue(log.size() >= 15 && log.get(log.size() - 1) == 100000L, log.toString());
        // 20 points over 5 decades: ratio 10^(5/19) = 1.83; rounding to whole steps distorts it below ~20
        for (int i = 2; i < log.size(); i++) {
            if (log.get(i - 1) >= 20) {
                double r1 = (double) log.get(i) / log.get(i - 1);
                assertEquals(Math.pow(10, 5.0 / 19), r1, 0.05 * r1, "log spacing in " + log);
            }
        }
    }

    @Test
    void badSchedulesAreUserErrors() {
        for (String s : new String[] {"sometimes", "every:0", "every:x", "log:3", "log:0:10"}) {
            UserException e = assertThrows(UserException.class, () -> Schedule.parse(s));
            assertTrue(e.getMessage().contains(s), e.getMessage());
        }
        assertFalse(Schedule.parse("every:5").due(3, true));
    }
}
