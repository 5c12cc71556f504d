package org.ntk4j.testing;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real headless Chromium driven over the Chrome DevTools Protocol (a WebSocket from Java's own HttpClient; no
 * browser-automation library): opens a page with the network emulated offline, records every request, console
 * message and uncaught exception, evaluates JavaScript and dispatches real mouse events. {@link #find()} locates the
 * browser ({@code $CHROMIUM}, else {@code /usr/bin/chromium}, {@code chromium}, {@code chromium-browser}).
 */
public final class HeadlessChromium implements AutoCloseable {
    private final Process process;
    private final Path profile;
    private final WebSocket ws;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonObject>> pending = new ConcurrentHashMap<>();
    private final List<JsonObject> events = Collections.synchronizedList(new ArrayList<>());
    private String session;

    /** The browser executable, or null when none is installed. */
    public static Path find() {
        List<String> candidates = new ArrayList<>();
        String env = System.getenv("CHROMIUM");
        if (env != null && !env.isBlank()) {
            candidates.add(env);
        }
        candidates.add("/usr/bin/chromium");
        candidates.add("/usr/bin/chromium-browser");
        candidates.add("/usr/bin/google-chrome");
        for (String c : candidates) {
            Path p = Path.of(c);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Starts the browser headless with a fresh profile, no background networking, and attaches to a blank page. */
    public HeadlessChromium(Path executable) throws Exception {
        profile = Files.createTempDirectory("ntk4j-chromium");
        process = new ProcessBuilder(
                        executable.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--no-first-run",
                        "--no-default-browser-check",
                        "--disable-extensions",
                        "--window-size=1280,900",
                        "--user-data-dir=" + profile,
                        "--remote-debugging-port=0",
                        "about:blank")
                .redirectErrorStream(true)
                .redirectOutput(profile.resolve("chromium.log").toFile())
                .start();
        Path portFile = profile.resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> lines = List.of();
        while (System.nanoTime() < deadline) {
            if (Files.isRegularFile(portFile)) {
                lines = Files.readAllLines(portFile);
                if (lines.size() >= 2) {
                    break;
                }
            }
            if (!process.isAlive()) {
                throw new IllegalStateException("chromium exited: " + log());
            }
            Thread.sleep(50);
        }
        if (lines.size() < 2) {
            close();
            throw new IllegalStateException("chromium did not open its DevTools port: " + log());
        }
        URI uri = URI.create(
                "ws://127.0.0.1:" + lines.get(0).strip() + lines.get(1).strip());
        ws = HttpClient.newHttpClient()
                .newWebSocketBuilder()
                .connectTimeout(Duration.ofSeconds(20))
                .buildAsync(uri, new Listener())
                .get(30, TimeUnit.SECONDS);
        JsonObject target = browser("Target.createTarget", obj("url", "about:blank"));
        JsonObject attach = browser(
                "Target.attachToTarget", obj("targetId", target.get("targetId").getAsString(), "flatten", true));
        session = attach.get("sessionId").getAsString();
        send("Runtime.enable", new JsonObject());
        send("Log.enable", new JsonObject());
        send("Page.enable", new JsonObject());
        send("Network.enable", new JsonObject());
        JsonObject offline = obj("offline", true, "latency", 0, "downloadThroughput", -1, "uploadThroughput", -1);
        send("Network.emulateNetworkConditions", offline);
    }

    private String log() {
        try {
            return Files.readString(profile.resolve("chromium.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** Navigates to {@code url} and waits for its load event. */
    public void open(String url) throws Exception {
        int before = events.size();
        send("Page.navigate", obj("url", url));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            synchronized (events) {
                for (int i = before; i < events.size(); i++) {
                    if ("Page.loadEventFired".equals(events.get(i).get("method").getAsString())) {
                        return;
                    }
                }
            }
            Thread.sleep(25);
        }
        throw new IllegalStateException("page did not load: " + url);
    }

    /** The value of a JavaScript expression (returned by value: JSON-able results only). */
    public JsonElement eval(String expression) throws Exception {
        JsonObject r = send("Runtime.evaluate", obj("expression", expression, "returnByValue", true));
        if (r.has("exceptionDetails")) {
            throw new IllegalStateException("JavaScript failed: " + r.get("exceptionDetails"));
        }
        JsonObject res = r.getAsJsonObject("result");
        return res.has("value") ? res.get("value") : null;
    }

    /** A real mouse event at page coordinates (CSS pixels of the viewport): mouseMoved, mousePressed, mouseReleased. */
    public void mouse(String type, double x, double y) throws Exception {
        JsonObject p = obj("type", type, "x", x, "y", y);
        if (!"mouseMoved".equals(type)) {
            p.addProperty("button", "left");
            p.addProperty("clickCount", 1);
        }
        send("Input.dispatchMouseEvent", p);
    }

    /** URLs of every request the page made (it should only ever read file: and data: URLs). */
    public List<String> requests() {
        List<String> out = new ArrayList<>();
        synchronized (events) {
            for (JsonObject e : events) {
                if ("Network.requestWillBeSent".equals(e.get("method").getAsString())) {
                    out.add(e.getAsJsonObject("params")
                            .getAsJsonObject("request")
                            .get("url")
                            .getAsString());
                }
            }
        }
        return out;
    }

    /** Console errors, warnings and uncaught exceptions so far, as text. */
    public List<String> problems() {
        List<String> out = new ArrayList<>();
        synchronized (events) {
            for (JsonObject e : events) {
                String m = e.get("method").getAsString();
                JsonObject p = e.getAsJsonObject("params");
                if ("Runtime.exceptionThrown".equals(m)) {
                    out.add("exception: " + p.get("exceptionDetails"));
                } else if ("Runtime.consoleAPICalled".equals(m)) {
                    String type = p.get("type").getAsString();
                    if (type.equals("error") || type.equals("assert") || type.equals("warning")) {
                        out.add("console." + type + ": " + p.get("args"));
                    }
                } else if ("Log.entryAdded".equals(m)) {
                    JsonObject entry = p.getAsJsonObject("entry");
                    String level = entry.get("level").getAsString();
                    if (level.equals("error") || level.equals("warning")) {
                        out.add("log " + level + ": " + entry.get("text").getAsString() + " "
                                + (entry.has("url") ? entry.get("url").getAsString() : ""));
                    }
                }
            }
        }
        return out;
    }

    private JsonObject browser(String method, JsonObject params) throws Exception {
        return call(method, params, null);
    }

    private JsonObject send(String method, JsonObject params) throws Exception {
        return call(method, params, session);
    }

    private JsonObject call(String method, JsonObject params, String sessionId) throws Exception {
        int id = ids.incrementAndGet();
        JsonObject msg = new JsonObject();
        msg.addProperty("id", id);
        msg.addProperty("method", method);
        msg.add("params", params);
        if (sessionId != null) {
            msg.addProperty("sessionId", sessionId);
        }
        CompletableFuture<JsonObject> f = new CompletableFuture<>();
        pending.put(id, f);
        ws.sendText(msg.toString(), true).get(30, TimeUnit.SECONDS);
        JsonObject reply = f.get(60, TimeUnit.SECONDS);
        if (reply.has("error")) {
            throw new IllegalStateException(method + ": " + reply.get("error"));
        }
        return reply.has("result") ? reply.getAsJsonObject("result") : new JsonObject();
    }

    private static JsonObject obj(Object... kv) {
        JsonObject o = new JsonObject();
        for (int i = 0; i < kv.length; i += 2) {
            String k = (String) kv[i];
            Object v = kv[i + 1];
            if (v instanceof Number n) {
                o.addProperty(k, n);
            } else if (v instanceof Boolean b) {
                o.addProperty(k, b);
            } else {
                o.addProperty(k, String.valueOf(v));
            }
        }
        return o;
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                JsonObject m = JsonParser.parseString(text.toString()).getAsJsonObject();
                text.setLength(0);
                if (m.has("id")) {
                    CompletableFuture<JsonObject> f = pending.remove(m.get("id").getAsInt());
                    if (f != null) {
                        f.complete(m);
                    }
                } else if (m.has("method")) {
                    events.add(m);
                }
            }
            socket.request(1);
            return null;
        }
    }

    @Override
    public void close() {
        try {
            if (ws != null) {
                try {
                    call("Browser.close", new JsonObject(), null);
                } catch (Exception e) {
                    // the browser may already be gone; it is destroyed below
                }
                ws.abort();
            }
        } finally {
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path p) {
        try (var s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(q);
            }
        } catch (IOException e) {
            // a leftover temporary profile is harmless
        }
    }
}
