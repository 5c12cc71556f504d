package org.ntk4j.job;

import java.nio.file.Path;
import java.util.Objects;
import org.ntk4j.OptionException;
import org.ntk4j.report.Npz;
import org.ntk4j.request.KernelOption;
import org.ntk4j.request.KernelRequest;

/**
 * A {@link KernelJob}: the kernel it computes and where it writes it (an NPZ, or a directory of NPY files, with a
 * JSON sidecar). Build with {@link #builder(KernelRequest)}.
 *
 * @param request what is computed
 * @param out the output .npz file (with {@code format} NPY: a directory); the sidecar is the same name with .json
 * @param dataDir the data directory the samples are read from
 * @param force replace an existing output (and the kernel sidecar it wrote); without it an existing file is an
 *     error. A {@code <stem>.json} that is not an ntk4j kernel sidecar is never replaced.
 * @param format NPZ (one zip, entries stored) or NPY (a directory of .npy files; the sidecar is DIR.json)
 * @param compress deflate the NPZ entries (smaller, ~25 MB/s instead of disk speed)
 * @param explain report the method chosen per layer with its FLOP estimates
 */
public record KernelJobConfig(
        KernelRequest request,
        Path out,
        Path dataDir,
        boolean force,
        Npz.Format format,
        boolean compress,
        boolean explain) {
    public KernelJobConfig {
        Objects.requireNonNull(request, "request");
        if (out == null) {
            throw new OptionException(KernelOption.OUT, " is required");
        }
        if (format == null) {
            format = Npz.Format.NPZ;
        }
        if (format == Npz.Format.NPZ && !out.getFileName().toString().endsWith(".npz")) {
            throw new OptionException(KernelOption.OUT, " must name a .npz file (got " + out + ")");
        }
    }

    /** A job computing {@code request}; {@link Builder#out(Path)} is required. */
    public static Builder builder(KernelRequest request) {
        return new Builder(request);
    }

    /** Builds a {@link KernelJobConfig}: one NPZ with stored entries, not replacing an existing one, by default. */
    public static final class Builder {
        private final KernelRequest request;
        private Path out;
        private Path dataDir;
        private boolean force;
        private Npz.Format format = Npz.Format.NPZ;
        private boolean compress;
        private boolean explain;

        private Builder(KernelRequest request) {
            this.request = request;
        }

        public Builder out(Path p) {
            this.out = p;
            return this;
        }

        public Builder dataDir(Path d) {
            this.dataDir = d;
            return this;
        }

        public Builder force(boolean b) {
            this.force = b;
            return this;
        }

        public Builder format(Npz.Format f) {
            this.format = f;
            return this;
        }

        public Builder compress(boolean b) {
            this.compress = b;
            return this;
        }

        public Builder explain(boolean b) {
            this.explain = b;
            return this;
        }

        public KernelJobConfig build() {
            return new KernelJobConfig(request, out, dataDir, force, format, compress, explain);
        }
    }
}
