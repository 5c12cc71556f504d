package org.ntk4j.cli;

import ai.djl.ndarray.NDManager;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.model.Network;
import org.ntk4j.spec.ModelSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code ntk4j models}: the model specs ntk4j knows (models/ and those bundled in the jar). */
@Command(
        name = "models",
        mixinStandardHelpOptions = true,
        description = "List the model specs (models/*.json, also bundled in the jar): name, architecture, input shape,"
                + " outputs and parameter count (counted by building each network on the CPU; --no-params skips that).")
public final class ModelsCommand implements Callable<Integer> {
    @Option(
            names = "--params",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "count parameters by building each network (default: ${DEFAULT-VALUE}; --no-params skips it)")
    boolean params;

    @Spec
    CommandSpec cmd;

    @Override
    public Integer call() {
        java.io.PrintWriter out = cmd.commandLine().getOut();
        out.printf(Locale.ROOT, "%-16s %-13s %-11s %7s %12s%n", "NAME", "ARCH", "INPUT", "OUTPUTS", "PARAMETERS");
        NDManager m = params ? NDManager.newBaseManager(ai.djl.Device.cpu()) : null;
        try {
            for (String name : ModelSpec.available()) {
                String arch;
                String input;
                String outputs;
                String count = "-";
                try {
                    ModelSpec s = ModelSpec.resolve(name);
                    arch = s.arch() + (s.depth() != null ? "-" + s.depth() : "");
                    input = Arrays.toString(s.input()).replace(" ", "");
                    outputs = Integer.toString(s.outputs());
                    if (m != null) {
                        try (Network net = Network.build(s, 0, m)) {
                            count = String.format(Locale.ROOT, "%,d", net.parameterCount());
                        }
                    }
                } catch (UserException e) {
                    arch = "invalid";
                    input = "";
                    outputs = "";
                    count = e.getMessage();
                }
                out.printf(Locale.ROOT, "%-16s %-13s %-11s %7s %12s%n", name, arch, input, outputs, count);
            }
        } finally {
            if (m != null) {
                m.close();
            }
        }
        out.flush();
        return 0;
    }
}
