package org.ntk4j.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.nio.file.Path;

/**
 * Heatmap PNGs drawn with Java2D (no plotting library): a kernel sorted by class with the class blocks outlined and
 * labelled on both axes, or a grid with a label per row and column; a colour bar with its range. Values are
 * coloured with viridis, or with a blue–white–red scale centred on 0 when the matrix has both signs. NaN cells are
 * grey. Row 0 is at the top.
 */
final class HeatmapImage {
    private static final int W = 700;
    private static final int H = 640;
    private static final int LEFT = 76;
    private static final int TOP = 46;
    private static final int RIGHT = 120;
    private static final int BOTTOM = 70;
    private static final Color[] VIRIDIS = {
        new Color(0x440154), new Color(0x482878), new Color(0x3e4989), new Color(0x31688e), new Color(0x26828e),
        new Color(0x1f9e89), new Color(0x35b779), new Color(0x6ece58), new Color(0xb5de2b), new Color(0xfde725)
    };
    private static final Color[] DIVERGING = {new Color(0x3b4cc0), Color.WHITE, new Color(0xb40426)};

    private HeatmapImage() {}

    static void write(Path file, Figure f) {
        BufferedImage img = draw(f);
        Files2.writeAtomically(file, os -> javax.imageio.ImageIO.write(img, "png", os));
    }

    static BufferedImage draw(Figure f) {
        double[][] z = f.z();
        int rows = z.length;
        int cols = rows == 0 ? 0 : z[0].length;
        double[] range = range(z);
        double lo = range[0];
        double hi = range[1];
        boolean diverging = lo < 0 && hi > 0;
        BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, W, H);
            double side = Math.min(W - LEFT - RIGHT, H - TOP - BOTTOM);
            double cw = side / Math.max(cols, 1);
            double ch = side / Math.max(rows, 1);
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < cols; j++) {
                    double v = z[i][j];
                    g.setColor(Double.isFinite(v) ? colour((v - lo) / (hi - lo), diverging) : Color.LIGHT_GRAY);
                    g.fill(new Rectangle2D.Double(LEFT + j * cw, TOP + i * ch, cw + 0.5, ch + 0.5));
                }
            }
            g.setColor(Color.DARK_GRAY);
            g.draw(new Rectangle2D.Double(LEFT, TOP, cols * cw, rows * ch));
            Font small = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
            g.setFont(small);
            FontMetrics fm = g.getFontMetrics();
            String xTitle = f.xLabel();
            String yTitle = f.yLabel();
            int[] classes = "heatmap".equals(f.kind()) ? f.classes() : null;
            if ("grid".equals(f.kind())) {
                String[] xt = f.xTicks();
                String[] yt = f.yTicks();
                for (int j = 0; j < xt.length; j++) {
                    tickX(g, fm, xt[j], LEFT + (j + 0.5) * cw, TOP + rows * ch);
                }
                for (int i = 0; i < yt.length; i++) {
                    tickY(g, fm, yt[i], TOP + (i + 0.5) * ch);
                }
            } else if (classes != null && classes.length == rows) {
                classTicks(g, fm, classes, cols, cw, ch);
                xTitle = "probe sample, sorted by class (class label)";
                yTitle = xTitle;
            } else {
                tickX(g, fm, "0", LEFT + 0.5 * cw, TOP + rows * ch);
                tickX(g, fm, Integer.toString(cols - 1), LEFT + (cols - 0.5) * cw, TOP + rows * ch);
                tickY(g, fm, "0", TOP + 0.5 * ch);
                tickY(g, fm, Integer.toString(rows - 1), TOP + (rows - 0.5) * ch);
                xTitle = xTitle.isEmpty() ? "column" : xTitle;
                yTitle = yTitle.isEmpty() ? "row" : yTitle;
            }
            g.setColor(Color.BLACK);
            g.drawString(xTitle, (float) (LEFT + cols * cw / 2 - fm.stringWidth(xTitle) / 2.0), (float)
                    (TOP + rows * ch + 44));
            AffineTransform saved = g.getTransform();
            g.rotate(-Math.PI / 2);
            g.drawString(yTitle, (float) -(TOP + rows * ch / 2 + fm.stringWidth(yTitle) / 2.0), 18f);
            g.setTransform(saved);
            colourBar(g, fm, lo, hi, diverging, LEFT + side + 24, side);
            g.setColor(Color.BLACK);
            Font big = new Font(Font.SANS_SERIF, Font.BOLD, 15);
            g.setFont(big);
            FontMetrics bm = g.getFontMetrics();
            String title = fit(f.title(), bm, W - 20);
            g.drawString(title, (W - bm.stringWidth(title)) / 2f, 28f);
        } finally {
            g.dispose();
        }
        return img;
    }

    /** The colour range of z's finite values: [lo, hi], symmetric about 0 when they straddle it. */
    private static double[] range(double[][] z) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double[] r : z) {
            for (double v : r) {
                if (Double.isFinite(v)) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        if (lo > hi) { // no finite value
            return new double[] {0, 1};
        }
        if (lo < 0 && hi > 0) {
            double m = Math.max(-lo, hi);
            return new double[] {-m, m};
        }
        return new double[] {lo, hi};
    }

    /** Class labels at the middle of each run of equal classes, and white lines at the class boundaries. */
    private static void classTicks(Graphics2D g, FontMetrics fm, int[] classes, int cols, double cw, double ch) {
        int rows = classes.length;
        g.setStroke(new BasicStroke(1.5f));
        int start = 0;
        for (int i = 1; i <= rows; i++) {
            if (i == rows || classes[i] != classes[start]) {
                String label = Integer.toString(classes[start]);
                tickX(g, fm, label, LEFT + (start + i) / 2.0 * cw, TOP + rows * ch);
                tickY(g, fm, label, TOP + (start + i) / 2.0 * ch);
                if (i < rows) { // a class boundary, across the whole matrix
                    g.setColor(Color.WHITE);
                    g.draw(new Line2D.Double(LEFT + i * cw, TOP, LEFT + i * cw, TOP + rows * ch));
                    g.draw(new Line2D.Double(LEFT, TOP + i * ch, LEFT + cols * cw, TOP + i * ch));
                }
                start = i;
            }
        }
    }

    private static void tickX(Graphics2D g, FontMetrics fm, String s, double x, double y) {
        g.setColor(Color.DARK_GRAY);
        g.draw(new Line2D.Double(x, y, x, y + 4));
        g.setColor(Color.BLACK);
        g.drawString(s, (float) (x - fm.stringWidth(s) / 2.0), (float) (y + 6 + fm.getAscent()));
    }

    private static void tickY(Graphics2D g, FontMetrics fm, String s, double y) {
        g.setColor(Color.DARK_GRAY);
        g.draw(new Line2D.Double(LEFT - 4, y, LEFT, y));
        g.setColor(Color.BLACK);
        g.drawString(s, (float) (LEFT - 7 - fm.stringWidth(s)), (float) (y + fm.getAscent() / 2.0 - 1));
    }

    private static void colourBar(Graphics2D g, FontMetrics fm, double lo, double hi, boolean div, double x, double h) {
        int steps = 100;
        for (int k = 0; k < steps; k++) {
            g.setColor(colour(1 - (k + 0.5) / steps, div));
            g.fill(new Rectangle2D.Double(x, TOP + k * h / steps, 16, h / steps + 0.5));
        }
        g.setColor(Color.DARK_GRAY);
        g.draw(new Rectangle2D.Double(x, TOP, 16, h));
        g.setColor(Color.BLACK);
        for (int k = 0; k <= 4; k++) {
            double v = hi - k * (hi - lo) / 4;
            double y = TOP + k * h / 4;
            g.draw(new Line2D.Double(x + 16, y, x + 20, y));
            g.drawString(Numbers.format(v), (float) (x + 23), (float) (y + fm.getAscent() / 2.0 - 1));
        }
    }

    /** The colour of t ∈ [0, 1] on the scale. */
    static Color colour(double t, boolean diverging) {
        Color[] lut = diverging ? DIVERGING : VIRIDIS;
        double s = Math.max(0, Math.min(1, t)) * (lut.length - 1);
        int i = Math.min((int) s, lut.length - 2);
        double u = s - i;
        Color a = lut[i];
        Color b = lut[i + 1];
        return new Color(
                (int) Math.round(a.getRed() + u * (b.getRed() - a.getRed())),
                (int) Math.round(a.getGreen() + u * (b.getGreen() - a.getGreen())),
                (int) Math.round(a.getBlue() + u * (b.getBlue() - a.getBlue())));
    }

    private static String fit(String s, FontMetrics fm, int width) {
        if (fm.stringWidth(s) <= width) {
            return s;
        }
        String t = s;
        while (t.length() > 1 && fm.stringWidth(t + "…") > width) {
            t = t.substring(0, t.length() - 1);
        }
        return t + "…";
    }
}
