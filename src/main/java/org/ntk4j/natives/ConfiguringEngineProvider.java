package org.ntk4j.natives;

import ai.djl.engine.Engine;
import ai.djl.pytorch.engine.PtEngineProvider;

/**
 * DJL's PyTorch engine provider, registered again by ntk4j's jar under the same name so that the
 * recorded native build ({@link Natives#configure()}) is applied when DJL's {@code Engine} class
 * initialises, before any libtorch is loaded: a Java program that only opens an NDManager uses the
 * recorded build without calling anything. The engine itself is DJL's (the providers share one
 * engine instance), whichever of the two registrations DJL keeps. NTK4J_NATIVE=off disables it.
 * Handing out the engine, it also applies the oneDNN setting ({@link OneDnn}).
 */
public final class ConfiguringEngineProvider extends PtEngineProvider {
    /** Applies the record while DJL's service loader instantiates the engine providers. */
    public ConfiguringEngineProvider() {
        Natives.configure();
    }

    @Override
    public Engine getEngine() {
        Natives.configure();
        Engine engine = super.getEngine();
        OneDnn.applyToLoaded();
        return engine;
    }
}
