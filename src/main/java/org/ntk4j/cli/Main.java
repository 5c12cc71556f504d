package org.ntk4j.cli;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.Callable;
import org.ntk4j.OptionException;
import org.ntk4j.UserException;
import org.ntk4j.files.IoMessages;
import org.ntk4j.report.BuildInfo;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** Entry point of the {@code ntk4j} command line. Every sub-command is a thin layer over the library. */
@Command(
        name = "ntk4j",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "Train vision networks and measure their neural tangent kernels (DJL + PyTorch).")
public final class Main implements Callable<Integer> {
    /** The sub-commands, in the order the usage lists them. */
    static final List<Class<?>> COMMANDS = List.of(
            CommandLine.HelpCommand.class,
            QuickstartCommand.class,
            TrainCommand.class,
            KernelCommand.class,
            RegressCommand.class,
            DataCommand.class,
            TheoryCommand.class,
            ReproduceCommand.class,
            ReportCommand.class,
            ExportCommand.class,
            ModelsCommand.class,
            DatasetsCommand.class,
            NativeCommand.class);

    @Spec
    CommandSpec spec;

    /** {@code --version}: "ntk4j VERSION (commit HASH)" from the build's resources. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {BuildInfo.describe()};
        }
    }

    /** Bare {@code ntk4j}: the usage on stderr and exit status 2 (no command given). */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return 2;
    }

    /**
     * Builds the command line with every sub-command, after applying the recorded native build; user mistakes become
     * one-line errors with exit status 2.
     */
    public static CommandLine commandLine() {
        return commandLine(null);
    }

    /**
     * As {@link #commandLine()}, but when {@code args} starts with a sub-command's exact name only that sub-command is
     * built: picocli builds each command's model by reflection, and the whole tree costs a fresh JVM about a second
     * (benchmarks/RESULTS.md, "The fixed cost of every command"). Parsing, help and error messages of the named
     * command are those of the whole tree; anything else (no command, {@code help}, a mistyped name, {@code
     * --version}) gets the whole tree.
     */
    static CommandLine commandLine(String[] args) {
        // the recorded native build, also when the launcher did not export it (java -cp ... Main)
        org.ntk4j.natives.Natives.configure();
        CommandLine cl = new CommandLine(new Main());
        Class<?> only = args == null || args.length == 0 ? null : command(args[0]);
        for (Class<?> c : COMMANDS) {
            if (only == null || c == only) {
                cl.addSubcommand(c);
            }
        }
        return configure(cl);
    }

    /** The sub-command named {@code name} exactly, other than {@code help} (which needs them all), or null. */
    private static Class<?> command(String name) {
        for (Class<?> c : COMMANDS) {
            if (c != CommandLine.HelpCommand.class
                    && c.getAnnotation(Command.class).name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /**
     * Installs the error handlers: a parse error is one line plus "see --help" (exit 2); a
     * {@link UserException} anywhere in the cause chain is one line (exit 2); an I/O failure (a full
     * disk, a vanished folder) is one line (exit 1); anything else is a bug and keeps its stack trace.
     */
    public static CommandLine configure(CommandLine cl) {
        CommandLine reproduce = cl.getSubcommands().get("reproduce");
        if (reproduce != null) {
            ReproduceCommand.describeStudies(reproduce.getCommandSpec());
        }
        cl.setExecutionStrategy(parsed -> {
            BuildInfo.command(parsed.originalArgs());
            org.ntk4j.util.Phases.mark("arguments parsed");
            return new CommandLine.RunLast().execute(parsed);
        });
        cl.setParameterExceptionHandler((ex, args) -> {
            CommandLine c = ex.getCommandLine();
            c.getErr()
                    .println("ntk4j: error: " + oneLine(ex.getMessage()) + " (see '"
                            + c.getCommandSpec().qualifiedName() + " --help')");
            return 2;
        });
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            String line = errorLine(ex, cmd.getCommandName());
            if (line == null) {
                throw ex;
            }
            cmd.getErr().println("ntk4j: error: " + line);
            return ex instanceof UserException || findUserException(ex) != null ? 2 : 1;
        });
        return cl;
    }

    /** The one-line message for a failure the user can act on, or null for a bug (stack trace). */
    static String errorLine(Throwable ex) {
        return errorLine(ex, "");
    }

    /**
     * As {@link #errorLine(Throwable)} for a failure of {@code command}: a full disk says how to go on (train resumes;
     * the other commands are run again), an I/O failure says what went wrong in words, never by class name.
     */
    static String errorLine(Throwable ex, String command) {
        UserException u = findUserException(ex);
        if (u != null) {
            return oneLine(u instanceof OptionException o ? Flags.message(o) : u.getMessage());
        }
        String again = "train".equals(command)
                ? "free some space and resume the run (ntk4j train --resume DIR)"
                : "free some space and run the command again";
        for (Throwable t = ex; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) {
                return "no space left on device (" + oneLine(m) + "); " + again;
            }
        }
        for (Throwable t = ex; t != null; t = t.getCause()) {
            // a memory-mapped file that could not grow (a full disk) or was truncated under us: the JVM turns the
            // SIGBUS into this error
            if (t instanceof InternalError
                    && t.getMessage() != null
                    && t.getMessage().contains("unsafe memory access")) {
                return "I/O error on a memory-mapped file (the disk holding it is full, or the file was truncated); "
                        + again;
            }
        }
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof IOException io) {
                return "I/O error: " + oneLine(IoMessages.describe(io));
            }
        }
        return null;
    }

    private static UserException findUserException(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof UserException u) {
                return u;
            }
        }
        return null;
    }

    /**
     * One line, in words: line breaks joined with "; ", and the Java class names and library links a message may
     * carry from below dropped ({@link IoMessages#words}).
     */
    static String oneLine(String s) {
        if (s == null) {
            return "";
        }
        String joined = s.strip().replaceAll("\\s*\\R\\s*", "; ");
        return joined.replaceAll(";?\\s*See https?://\\S+", "")
                .replaceAll(
                        "\\b(?:java|javax|com|org|ai|sun|jdk)\\.(?:[a-z][a-z0-9_]*\\.)*[A-Z][A-Za-z0-9_$]*(?:Exception|Error)(?::\\s*)?",
                        "")
                .replaceAll("\\b[A-Z][A-Za-z0-9]*(?:Exception|Error):\\s*", "")
                .strip();
    }

    public static void main(String[] args) {
        org.ntk4j.util.Phases.mark("jvm started (main)");
        CommandLine cl = commandLine(args);
        org.ntk4j.util.Phases.mark("command line built");
        int status = cl.execute(args);
        org.ntk4j.util.Phases.mark("command done");
        String dump = System.getProperty("ntk4j.cdsDump");
        if (status == 0 && dump != null) {
            // the launcher's class-data archive, dumped as this JVM exits, holds a successful run's classes
            try {
                java.nio.file.Files.write(java.nio.file.Path.of(dump + ".ok"), new byte[0]);
            } catch (IOException | RuntimeException e) {
                // no marker: the launcher deletes the dump and the next run dumps again
            }
        }
        System.exit(status);
    }
}
