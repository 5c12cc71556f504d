package org.ntk4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * Every option (and positional parameter) of every command, walked from picocli's model so that a new option is
 * covered by being declared: a value of the wrong type, one out of range and an absurd one are each refused with exit
 * status 2 and one line {@code ntk4j: error: ...} that names the option or the value and carries no Java class name.
 * Each command runs on tiny valid inputs, so a value checked only later is still reached in seconds; the values a
 * command rightly accepts (any seed is a seed) are listed in {@link #ACCEPTED} with the reason, and not run.
 */
class EveryOptionTest {
    @TempDir
    static Path tmp;

    private static Path store;
    private static Path kernel;
    private static Path run;

    /** A Java class name (or a library link) in a message. */
    static final Pattern LEAK =
            Pattern.compile("(?:java|javax|com|org|ai|sun)\\.[a-z]+\\.|\\b[A-Z]\\w*(?:Exception|Error)\\b|https?://");

    /** A shard store, a kernel file and a training run: the tiny valid inputs of assemble, regress, report, export. */
    @BeforeAll
    static void inputs() {
        store = tmp.resolve("store");
        CliTest.Run r = CliTest.tinyShard(store);
        assertEquals(0, r.code(), r.err());
        kernel = tmp.resolve("K.npz");
        r = CliTest.run("kernel", "--model", "mlp-quickstart", "--n", "4", "--test", "2", "--out", kernel.toString());
        assertEquals(0, r.code(), r.err());
        run = tmp.resolve("run");
        List<String> train = new ArrayList<>(List.of("train"));
        base("train").forEach(a -> train.add(a.replace("OUT", run.toString())));
        r = CliTest.run(train.toArray(String[]::new));
        assertEquals(0, r.code(), r.err());
    }

    /** The tiny valid arguments each command runs with ({@code OUT} is replaced by a fresh folder per case). */
    static List<String> base(String command) {
        return switch (command) {
            case "quickstart" -> List.of("--out", "OUT", "--epochs", "1");
            case "train" -> List.of(
                    "--model",
                    "mlp-quickstart",
                    "--n",
                    "2",
                    "--test",
                    "1",
                    "--epochs",
                    "1",
                    "--batch-size",
                    "10",
                    "--out",
                    "OUT");
            case "kernel" -> List.of("--model", "mlp-quickstart", "--n", "2", "--out", "OUT.npz");
            case "kernel assemble" -> List.of(store.toString(), "--out", "OUT.npz", "--keep-shards");
            case "regress" -> List.of("--kernel", kernel.toString(), "--out", "OUT");
            case "data fetch" -> List.of("mnist", "--dir", "OUT");
            case "data info" -> List.of("mnist-subset");
            case "reproduce" -> List.of("phase-diagram", "--quick", "--out", "OUT");
                // an empty DJL source folder: a run that passes the option checks stops there, offline, before
                // compiling
            case "native build" -> List.of(
                    "--env-file",
                    "OUT/native.properties",
                    "--work-dir",
                    "OUT/work",
                    "--djl-cache",
                    "OUT/cache",
                    "--djl-source",
                    "OUT");
            case "help" -> List.of("kernel");
            case "report" -> List.of(run.toString(), "--out", "OUT");
            case "export" -> List.of(run.toString(), "--out", "OUT.safetensors");
            default -> command.startsWith("theory") ? List.of("--out", "OUT") : List.of();
        };
    }

    /**
     * Values a command rightly accepts, by "command option kind" (kind: type, range, absurd): not run, each with its
     * reason. Everything else must be refused.
     */
    static final Map<String, String> ACCEPTED = new LinkedHashMap<>();

    static {
        ACCEPTED.put("* --seed range", "any long is a seed");
        ACCEPTED.put("* --seed absurd", "any long is a seed");
        ACCEPTED.put("* --threads absurd", "lowered to the cores this process may use, with a warning (Guarantees)");
        ACCEPTED.put("native build --jobs absurd", "lowered to the cores, with a warning, as --threads");
        ACCEPTED.put("train --epochs absurd", "a long run is the user's to choose: it checkpoints, stops and resumes");
        ACCEPTED.put("quickstart --epochs absurd", "a long run is the user's to choose");
        ACCEPTED.put("train --batch-size absurd", "a batch larger than the training set is the whole set (full batch)");
        ACCEPTED.put("train --checkpoint-every absurd", "any interval: checkpoints are written at epoch ends anyway");
        ACCEPTED.put("kernel --tile absurd", "a tile larger than the kernel is the whole kernel, one tile");
        ACCEPTED.put(
                "theory --out range", "without a subcommand theory prints its usage; each subcommand checks --out");
        ACCEPTED.put(
                "theory --out absurd", "without a subcommand theory prints its usage; each subcommand checks --out");
        ACCEPTED.put("data where --dir range", "prints where the data would be: the folder need not exist yet");
        ACCEPTED.put("data where --dir absurd", "prints where the data would be: the folder need not exist yet");
        ACCEPTED.put("theory solvable --kappa range", "the output multiplier κ may be negative");
        ACCEPTED.put("theory solvable --y range", "the target y may be negative");
        ACCEPTED.put("theory phase --cd range", "a scaling exponent may be negative");
        ACCEPTED.put("theory equilibrium --constant absurd", "any C > 0 is defined: a huge C puts l_eq at layer 1");
    }

    record Case(String command, String option, String kind, String value) {
        String key() {
            return command + " " + option + " " + kind;
        }
    }

    /** The values tried for an argument of {@code type}: wrong type, out of range, absurd (null: not applicable). */
    static Map<String, String> values(Class<?> type) {
        Map<String, String> v = new LinkedHashMap<>();
        if (type == int.class || type == Integer.class || type == int[].class) {
            v.put("type", "x1");
            v.put("range", "-7");
            v.put("absurd", "2147483647");
        } else if (type == long.class || type == Long.class) {
            v.put("type", "x1");
            v.put("range", "-7");
            v.put("absurd", "9223372036854775807");
        } else if (type == double.class || type == Double.class || type == double[].class) {
            v.put("type", "x1");
            v.put("range", "-7.5");
            v.put("absurd", "1e308");
        } else if (type == Path.class) {
            v.put("range", "/proc/nonexistent/x");
            v.put("absurd", "/dev/null/x");
        } else if (type == String.class) {
            v.put("type", "");
            v.put("range", "no-such-value");
            v.put("absurd", "x".repeat(300));
        }
        return v;
    }

    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        walk(Main.commandLine(), out);
        return out;
    }

    private static void walk(CommandLine cl, List<Case> out) {
        CommandSpec spec = cl.getCommandSpec();
        String name = spec.qualifiedName(" ").replaceFirst("^ntk4j ?", "");
        List<ArgSpec> args = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            if (!o.usageHelp() && !o.versionHelp() && o.arity().max() > 0) {
                args.add(o);
            }
        }
        args.addAll(spec.positionalParameters());
        for (ArgSpec a : args) {
            String option =
                    a instanceof OptionSpec o ? o.longestName() : "<" + ((PositionalParamSpec) a).paramLabel() + ">";
            values(a.type()).forEach((kind, value) -> out.add(new Case(name, option, kind, value)));
        }
        for (CommandLine sub : cl.getSubcommands().values()) {
            walk(sub, out);
        }
    }

    static String accepted(Case c) {
        String r = ACCEPTED.get(c.key());
        return r != null ? r : ACCEPTED.get("* " + c.option() + " " + c.kind());
    }

    /** The command line of a case: the command, its base with the tried argument replaced, OUT made unique. */
    static String[] argv(Case c, int i) {
        Path out = tmp.resolve("case-" + i);
        List<String> a = new ArrayList<>(List.of(c.command().split(" ")));
        if (c.command().isEmpty()) {
            a.clear();
        }
        List<String> b = new ArrayList<>(base(c.command()));
        if (c.option().startsWith("<")) {
            if (!b.isEmpty() && !b.get(0).startsWith("--")) {
                b.remove(0);
            }
            b.add(0, c.value());
        } else {
            int at = b.indexOf(c.option());
            if (at >= 0) {
                b.remove(at + 1);
                b.remove(at);
            }
            b.add(c.option());
            b.add(c.value());
        }
        for (String s : b) {
            a.add(s.replace("OUT", out.toString()));
        }
        return a.toArray(String[]::new);
    }

    @Test
    void everyOptionRefusesWrongOutOfRangeAndAbsurdValuesInOneLine() throws Exception {
        List<Case> all = cases();
        assertTrue(all.size() > 300, "cases: " + all.size());
        List<String> problems = new ArrayList<>();
        int run = 0;
        ExecutorService ex = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "every-option");
            t.setDaemon(true);
            return t;
        });
        try {
            for (int i = 0; i < all.size(); i++) {
                Case c = all.get(i);
                if (accepted(c) != null) {
                    continue;
                }
                String[] argv = argv(c, i);
                Future<CliTest.Run> f = ex.submit(() -> CliTest.run(argv));
                CliTest.Run r;
                long t0 = System.nanoTime();
                try {
                    r = f.get(60, TimeUnit.SECONDS);
                } catch (TimeoutException e) {
                    problems.add(c.key() + " '" + abbreviate(c.value())
                            + "': still running after 60 s (accepted and computing?)");
                    ex.shutdownNow();
                    ex = Executors.newSingleThreadExecutor();
                    continue;
                } catch (java.util.concurrent.ExecutionException e) {
                    problems.add(c.key() + " '" + abbreviate(c.value()) + "': threw " + e.getCause());
                    continue;
                }
                double secs = (System.nanoTime() - t0) / 1e9;
                if (secs > 5) {
                    System.out.printf("every-option: %s '%s' took %.1f s%n", c.key(), abbreviate(c.value()), secs);
                }
                run++;
                String err = r.err().strip();
                String why = r.code() != 2
                        ? "exit " + r.code()
                        : err.contains("\n")
                                ? "more than one line"
                                : !err.startsWith("ntk4j: error: ")
                                        ? "not an ntk4j error line"
                                        : LEAK.matcher(err).find()
                                                ? "a class name or link"
                                                : !names(err, c)
                                                        ? "does not name " + c.option() + " or the value"
                                                        : null;
                if (why != null) {
                    problems.add(c.key() + " '" + abbreviate(c.value()) + "': " + why + ": " + abbreviate(err));
                    System.out.println("every-option problem: " + problems.get(problems.size() - 1));
                }
            }
        } finally {
            ex.shutdownNow();
        }
        System.out.printf(
                "every-option: %d cases, %d run, %d accepted with a reason, %d problems%n",
                all.size(), run, all.stream().filter(c -> accepted(c) != null).count(), problems.size());
        assertTrue(problems.isEmpty(), problems.size() + " of " + run + " cases:\n" + String.join("\n", problems));
    }

    /** Whether the message names the option (or a word of it) or the value. */
    static boolean names(String err, Case c) {
        // --weight-decay is also named as the spec field weightDecay
        String opt = c.option().replaceAll("^--|[<>]", "").replace("-", "").toLowerCase(java.util.Locale.ROOT);
        String words = err.replace("-", "").toLowerCase(java.util.Locale.ROOT);
        if (err.contains(c.option()) || words.contains(opt)) {
            return true;
        }
        if (c.value().isEmpty()) {
            return err.contains("''") || err.contains("empty");
        }
        return err.contains(c.value().length() > 40 ? c.value().substring(0, 40) : c.value());
    }

    static String abbreviate(String s) {
        return s.length() > 160 ? s.substring(0, 157) + "..." : s;
    }

    /** The walk reaches every command (a guard against a walk that silently covers nothing). */
    @Test
    void theWalkCoversEveryCommand() {
        List<String> commands = cases().stream().map(Case::command).distinct().toList();
        for (String c : List.of(
                "quickstart",
                "train",
                "kernel",
                "kernel assemble",
                "regress",
                "data fetch",
                "data info",
                "reproduce",
                "theory ntk",
                "native build")) {
            assertTrue(commands.contains(c), c + " in " + commands);
        }
        assertTrue(Files.isDirectory(tmp));
    }
}
