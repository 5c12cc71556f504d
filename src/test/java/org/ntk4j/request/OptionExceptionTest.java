package org.ntk4j.request;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.ntk4j.OptionException;
import org.ntk4j.OptionKey;

/** A setting's key in a message: the library names it, a front end renames it; text around it is kept as it is. */
class OptionExceptionTest {
    @Test
    void keysAreLowerCamelCaseAndFlagsKebabCase() {
        assertEquals("perClass", KernelOption.PER_CLASS.key());
        assertEquals("testRows", KernelOption.TEST_ROWS.key());
        assertEquals("n", KernelOption.N.key());
        assertEquals("per-class", OptionKey.kebab("perClass"));
        assertEquals("sigma-w2", OptionKey.kebab("sigmaW2"));
        assertEquals("t-max", OptionKey.kebab("tMax"));
    }

    @Test
    void partsAreRenderedWithTheFrontEndsNames() {
        OptionException e = new OptionException(
                "raise ", KernelOption.MEMORY, " or use ", KernelOption.SPILL_DIR, " {} DIR", new Object[] {" ", 3});
        assertEquals("raise memory or use spillDir {} DIR 3", e.getMessage());
        assertEquals("raise --memory or use --spill-dir {} DIR 3", e.message(k -> "--" + OptionKey.kebab(k)));
        assertEquals(List.of("memory", "spillDir"), e.keys());
    }
}
