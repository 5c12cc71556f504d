package org.ntk4j.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/** Modules applied one after another. */
public final class Sequential extends Module {
    private final List<Module> modules = new ArrayList<>();

    public Sequential(String name) {
        super(name);
    }

    public Sequential add(Module m) {
        modules.add(m);
        return this;
    }

    @Override
    public List<Module> children() {
        return Collections.unmodifiableList(modules);
    }

    @Override
    public Shape initialize(NDManager m, DataType type, Shape in, Random rng) {
        Shape s = in;
        for (Module mod : modules) {
            s = mod.initialize(m, type, s, rng);
        }
        return s;
    }

    @Override
    public Shape plan(Shape in, ParameterCount count) {
        Shape s = in;
        for (Module mod : modules) {
            s = mod.plan(s, count);
        }
        return s;
    }

    @Override
    public NDArray forward(NDArray x, Forward ctx) {
        NDArray h = x;
        for (Module mod : modules) {
            h = mod.forward(h, ctx);
        }
        return h;
    }
}
