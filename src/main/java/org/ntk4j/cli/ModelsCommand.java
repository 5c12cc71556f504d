package org.ntk4j.cli;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.ntk4j.UserException;
import org.ntk4j.model.Models;
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
                + " outputs and trainable parameter count (counted from the spec: no network is built).")
public final class ModelsCommand implements Callable<Integer> {
    @Option(
            names = "--params",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description = "count the parameters (default: ${DEFAULT-VALUE}; --no-params leaves the column empty)")
    boolean params;

    @Spec
    CommandSpec cmd;

    @Override
    public Integer call() {
        TextTable t = new TextTable(
                new String[] {"NAME", "ARCH", "INPUT", "OUTPUTS", "PARAMETERS"}, false, false, false, true, true);
        for (String name : ModelSpec.available()) {
            try {
                ModelSpec s = ModelSpec.resolve(name);
                t.row(
                        name,
                        s.arch() + (s.depth() != null ? "-" + s.depth() : ""),
                        Arrays.toString(s.input()).replace(" ", ""),
                        Integer.toString(s.outputs()),
                        params ? String.format(Locale.ROOT, "%,d", Models.parameterCount(s)) : "-");
            } catch (UserException e) {
                t.row(name, "invalid", "", "", e.getMessage());
            }
        }
        t.print(cmd.commandLine().getOut());
        return 0;
    }
}
