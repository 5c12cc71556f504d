package org.ntk4j.cli;

import org.ntk4j.UserException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code ntk4j} command line. Every sub-command is a thin layer over the library. */
@Command(
        name = "ntk4j",
        mixinStandardHelpOptions = true,
        version = "ntk4j 0.1.0",
        description = "Train vision networks and measure their neural tangent kernels (DJL + PyTorch).",
        subcommands = {CommandLine.HelpCommand.class, QuickstartCommand.class, TrainCommand.class, KernelCommand.class,
            DataCommand.class, TheoryCommand.class, ReproduceCommand.class, NativeCommand.class})
public final class Main implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    /** Builds the command line; user mistakes become one-line errors with exit status 2. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            Throwable t = ex;
            while (t != null && !(t instanceof UserException)) {
                t = t.getCause();
            }
            if (t != null) {
                cmd.getErr().println("ntk4j: error: " + t.getMessage());
                return 2;
            }
            throw ex;
        });
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }
}
