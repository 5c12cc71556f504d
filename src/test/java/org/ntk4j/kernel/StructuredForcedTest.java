package org.ntk4j.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.core.Linear;
import ai.djl.nn.norm.LayerNorm;
import org.junit.jupiter.api.Test;
import org.ntk4j.UserException;
import org.ntk4j.model.Network;

/**
 * Forcing {@link Method#STRUCTURED} on a network with a layer that has no tangent rule (a DJL LayerNorm inside a
 * sequential block, which ntk4j opens as an opaque DJL block) is refused by {@link Ntk#compute} and
 * {@link Ntk#computeBlock} in one sentence naming the user's layer and its DJL class, as {@link NtkFunction} refuses
 * it, instead of computing that layer on the general path unasked; AUTO still computes it.
 */
class StructuredForcedTest {
    @Test
    void forcedStructuredOnALayerWithoutATangentRuleIsRefusedNamingIt() {
        try (NDManager m = NDManager.newBaseManager()) {
            SequentialBlock block = new SequentialBlock()
                    .add(Linear.builder().setUnits(4).build())
                    .add(LayerNorm.builder().build())
                    .add(Linear.builder().setUnits(2).build());
            block.initialize(m, DataType.FLOAT64, new Shape(1, 3));
            Network net = Ntk.function(
                            block, new Shape(3), Ntk.options().float64(true).build())
                    .network();
            NDArray x = m.randomNormal(new Shape(5, 3)).toType(DataType.FLOAT64, false);

            UserException e = assertThrows(
                    UserException.class,
                    () -> Ntk.of(net).method(Method.STRUCTURED).float64().compute(x));
            String msg = e.getMessage();
            assertTrue(msg.startsWith("method STRUCTURED was asked for, but layer "), msg);
            assertTrue(msg.contains("no tangent rule for DJL block ai.djl.nn.norm.LayerNorm"), msg);
            assertFalse(msg.contains("Group"), msg);
            assertFalse(msg.contains("\n"), msg);

            UserException block2 = assertThrows(UserException.class, () -> Ntk.of(net)
                    .method(Method.STRUCTURED)
                    .float64()
                    .tile(5)
                    .computeBlock(x, x, 0, 0, 5, 5, true));
            assertEquals(msg, block2.getMessage());

            KernelResult auto = Ntk.of(net).float64().compute(x);
            try {
                assertEquals(5, auto.total().rows());
                assertTrue(auto.total().get(0, 0) > 0);
            } finally {
                auto.release();
            }
        }
    }
}
