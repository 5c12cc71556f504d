package org.ntk4j.kernel.rule;

import org.ntk4j.model.DjlConv2d;

/**
 * DJL's {@code ai.djl.nn.convolutional.Conv2d}: the {@link Conv2dRule} (rows or position pairs;
 * Novak et al. 2022, "Fast Finite Width Neural Tangent Kernel", §3.3) with c_w = c_b = 1, for square
 * kernels, equal strides and paddings, no dilation and one group.
 */
public final class DjlConv2dRule extends Conv2dRule<DjlConv2d> {
    @Override
    public String inapplicable(DjlConv2d layer) {
        return layer.unsupported();
    }

    @Override
    ConvGeometry geometry(DjlConv2d c) {
        return new ConvGeometry(
                c.name(),
                c.kernel(),
                c.stride(),
                c.padding(),
                c.outputPositions(),
                c.weight(),
                c.bias(),
                c.weightScale(),
                c.biasScale());
    }
}
