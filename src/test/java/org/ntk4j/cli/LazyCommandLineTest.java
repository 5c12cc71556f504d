package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@link Main#commandLine(String[])} builds only the sub-command a command line names, and that sub-command parses,
 * helps and fails exactly as in the whole tree; anything else gets the whole tree.
 */
class LazyCommandLineTest {
    private static String usage(CommandLine cl) {
        StringWriter w = new StringWriter();
        cl.usage(new PrintWriter(w), CommandLine.Help.Ansi.OFF);
        return w.toString();
    }

    private static String run(CommandLine cl, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        int code = cl.execute(args);
        return code + "\n" + out + "\n" + err;
    }

    @Test
    void aNamedCommandAloneWithTheWholeTreesHelp() {
        CommandLine all = Main.commandLine();
        List<String> names = new ArrayList<>(all.getSubcommands().keySet());
        assertEquals(Main.COMMANDS.size(), names.size(), names.toString());
        for (String name : names) {
            if (name.equals("help")) {
                continue;
            }
            CommandLine one = Main.commandLine(new String[] {name});
            assertEquals(List.of(name), new ArrayList<>(one.getSubcommands().keySet()));
            assertEquals(
                    usage(all.getSubcommands().get(name)),
                    usage(one.getSubcommands().get(name)),
                    name + " --help");
        }
    }

    @Test
    void sameOutcomeForMistakesAndHelp() {
        String[][] lines = {
            {"kernel", "--no-such-option"},
            {"train", "--epochs", "x"},
            {"models", "--help"},
            {"kernl"},
            {"help", "kernel"},
            {"--help"},
            {}
        };
        for (String[] args : lines) {
            assertEquals(run(Main.commandLine(), args), run(Main.commandLine(args), args), String.join(" ", args));
        }
        assertTrue(Main.commandLine(new String[] {"kernl"}).getSubcommands().size() == Main.COMMANDS.size());
        assertTrue(Main.commandLine(new String[] {"help", "kernel"})
                        .getSubcommands()
                        .size()
                == Main.COMMANDS.size());
    }
}
