package org.ntk4j.natives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;

/** The layers oneDNN must not run, and the setting's values. */
class OneDnnTest {
    @Test
    void narrowSpatialConvolutionsAreUnsafe() {
        assertTrue(OneDnn.unsafe(3, 3, 8)); // NaN / O(1) errors measured
        assertTrue(OneDnn.unsafe(3, 3, 12));
        assertTrue(OneDnn.unsafe(3, 3, 3));
        assertTrue(OneDnn.unsafe(5, 5, 24)); // a multiple of AVX2's 8, not of AVX-512's 16
        assertFalse(OneDnn.unsafe(3, 3, 16));
        assertFalse(OneDnn.unsafe(3, 3, 48));
        assertFalse(OneDnn.unsafe(1, 1, 12)); // 1×1 convolutions were right at every width
    }

    @Test
    void settingIsAutoOnOrOff() {
        String before = System.getProperty(OneDnn.PROPERTY);
        try {
            System.clearProperty(OneDnn.PROPERTY);
            if (System.getenv("NTK4J_ONEDNN") == null) {
                assertEquals("auto", OneDnn.wanted());
            }
            System.setProperty(OneDnn.PROPERTY, " OFF ");
            assertEquals("off", OneDnn.wanted());
            System.setProperty(OneDnn.PROPERTY, "sometimes");
            UserException e = assertThrows(UserException.class, OneDnn::wanted);
            assertEquals("-Dntk4j.onednn (NTK4J_ONEDNN) must be auto, on or off (got sometimes)", e.getMessage());
        } finally {
            if (before == null) {
                System.clearProperty(OneDnn.PROPERTY);
            } else {
                System.setProperty(OneDnn.PROPERTY, before);
            }
        }
    }
}
