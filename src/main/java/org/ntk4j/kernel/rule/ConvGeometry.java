package org.ntk4j.kernel.rule;

import org.ntk4j.model.Param;

/**
 * What the convolution factor needs to know of a 2-d convolution y = c_w·conv(W, a) + c_b·b with a
 * square kernel, equal strides and symmetric zero padding, whatever class implements it (ntk4j's
 * {@code Conv2d}, a wrapped DJL {@code Conv2d}).
 *
 * @param name layer name (the factor's key)
 * @param kernel k (W is C_out × C_in × k × k)
 * @param stride s
 * @param padding p
 * @param positions output positions H'·W' per sample
 * @param weight W
 * @param bias b, or null
 * @param weightScale c_w
 * @param biasScale c_b (0 without bias)
 */
record ConvGeometry(
        String name,
        int kernel,
        int stride,
        int padding,
        long positions,
        Param weight,
        Param bias,
        double weightScale,
        double biasScale) {}
